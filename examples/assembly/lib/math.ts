/** Greatest common divisor (Euclid). */
export function gcd(a: i32, b: i32): i32 {
  a = abs(a);
  b = abs(b);
  while (b != 0) {
    const t = b;
    b = a % b;
    a = t;
  }
  return a;
}

/** Keep `value` inside [lo, hi]. */
export function clamp(value: f64, lo: f64, hi: f64): f64 {
  return value < lo ? lo : value > hi ? hi : value;
}

export function isPrime(n: i32): bool {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d++) {
    if (n % d == 0) return false;
  }
  return true;
}
