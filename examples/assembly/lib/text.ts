import { clamp } from "./math";

/** Lower-case, keep letters and digits, join the words with "-". */
export function slugify(input: string): string {
  let out = "";
  let pendingDash = false;
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    const isDigit = c >= 48 && c <= 57;
    const isUpper = c >= 65 && c <= 90;
    const isLower = c >= 97 && c <= 122;
    if (isDigit || isUpper || isLower) {
      if (pendingDash && out.length > 0) out += "-";
      pendingDash = false;
      out += String.fromCharCode(isUpper ? c + 32 : c);
    } else {
      pendingDash = true;
    }
  }
  return out;
}

/** A text progress bar of `width` cells for a ratio in [0, 1]. */
export function progressBar(ratio: f64, width: i32): string {
  const filled = <i32>Math.round(clamp(ratio, 0, 1) * <f64>width);
  return "[" + "#".repeat(filled) + ".".repeat(width - filled) + "]";
}
