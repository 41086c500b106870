import { describe, expect, test } from "as-test";
import { clamp, gcd, isPrime } from "../lib/math";

describe("gcd", () => {
  test("of two positives", () => {
    expect(gcd(12, 18)).toBe(6);
    expect(gcd(17, 5)).toBe(1);
  });

  test("ignores signs", () => {
    expect(gcd(-12, 18)).toBe(6);
  });

  test("with zero", () => {
    expect(gcd(0, 9)).toBe(9);
  });
});

describe("clamp", () => {
  test("inside and outside the range", () => {
    expect(clamp(0.5, 0, 1)).toBe(0.5);
    expect(clamp(-3, 0, 1)).toBe(0);
    expect(clamp(7, 0, 1)).toBe(1);
  });
});

describe("isPrime", () => {
  test("small numbers", () => {
    expect(isPrime(2)).toBe(true);
    expect(isPrime(9)).toBe(false);
    expect(isPrime(97)).toBe(true);
  });
});
