import { describe, expect, test } from "as-test";
import { progressBar, slugify } from "../lib/text";

describe("rendering", () => {
  test("progress bars", () => {
    expect(progressBar(0.25, 8)).toMatchSnapshot();
    expect(progressBar(1.0, 8)).toMatchSnapshot("full");
  });

  test("slugs", () => {
    expect(slugify("Release Notes: v1.0.7")).toMatchSnapshot();
  });
});
