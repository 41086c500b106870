import { describe, expect, it, log, test } from "as-test";
import { progressBar, slugify } from "../lib/text";

describe("slugify", () => {
  test("words and punctuation", () => {
    expect(slugify("Hello, World!")).toBe("hello-world");
  });

  it("keeps digits", () => {
    expect(slugify("AssemblyScript 0.28")).toBe("assemblyscript-0-28");
  });

  test("empty input", () => {
    expect(slugify("  ")).toBe("");
  });
});

describe("progressBar", () => {
  test("half full", () => {
    const bar = progressBar(0.5, 10);
    log(bar);
    expect(bar).toBe("[#####.....]");
  });

  test("clamps the ratio", () => {
    expect(progressBar(2.0, 4)).toBe("[####]");
    expect(progressBar(-1.0, 4)).toBe("[....]");
  });
});
