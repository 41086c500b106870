"""Generate a deterministic as-test project with N realistic, passing specs (for run_bench.py).

    python bench/generate_suite.py 100 bench/.work/suite-100

The project has three shared helper modules under ``assembly/lib/`` (``arrays`` imports
``numeric``, so some specs have transitive local imports), ``N`` specs under
``assembly/__tests__/`` mixing numeric, string and array code in several describe/test blocks
with a few expectations each (about one spec in five is self-contained and imports no helper),
an ``as-test.config.json`` with one wasi target, a ``package.json`` (``"type": "module"``) and a
``dodo.py`` that runs the specs through astest-tasks.

The same N always gives the same bytes. Every expected value is computed here, in Python, with the
same algorithm as the AssemblyScript helper, so every generated test passes.

node_modules: the project must resolve ``assemblyscript``, ``as-test`` and
``@assemblyscript/wasi-shim``; pass ``--node-modules PATH`` to symlink an installed
``node_modules`` into it (run_bench.py links the repository's).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

SPEC_DIR = Path("assembly") / "__tests__"
LIB_DIR = Path("assembly") / "lib"
SPEC_GLOB = "assembly/__tests__/*.spec.ts"

# The devDependencies package.json pins, per as-test version the suite is generated for: the
# repository's toolchain (1.0.7) and tests/toolchains/as-test-1.8.0. The config is the same for
# both (one wasi target, no modes): as-test 1.8 reads it as its default mode and writes its stock
# Node WASI runner on the first run, as 1.0.7 does.
TOOLCHAINS = {
    "1.0.7": {
        "@assemblyscript/wasi-shim": "0.1.0",
        "as-test": "1.0.7",
        "assemblyscript": "0.28.14",
    },
    "1.8.0": {
        "@assemblyscript/wasi-shim": "0.1.0",
        "as-test": "1.8.0",
        "assemblyscript": "0.28.20",
    },
}

# The shared helpers the specs import. Plain, typical AssemblyScript: loops, i64 arithmetic,
# strings built char by char, arrays copied and sorted.
NUMERIC_TS = """\
/** Greatest common divisor (Euclid), ignoring signs. */
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

/** The n-th Fibonacci number, iteratively. */
export function fib(n: i32): i64 {
  let a: i64 = 0;
  let b: i64 = 1;
  for (let i = 0; i < n; i++) {
    const t = a + b;
    a = b;
    b = t;
  }
  return a;
}

export function isPrime(n: i32): bool {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d++) {
    if (n % d == 0) return false;
  }
  return true;
}

/** Steps of the Collatz sequence from n down to 1. */
export function collatzSteps(n: i64): i32 {
  let steps = 0;
  while (n != 1) {
    n = n % 2 == 0 ? n / 2 : 3 * n + 1;
    steps++;
  }
  return steps;
}

export function sumTo(n: i32): i64 {
  return (<i64>n * (<i64>n + 1)) / 2;
}

/** base ** exp modulo mod, by squaring (mod < 2^31 keeps every product in i64). */
export function powMod(base: i64, exp: i64, mod: i64): i64 {
  let result: i64 = 1;
  base = base % mod;
  while (exp > 0) {
    if (exp & 1) result = (result * base) % mod;
    base = (base * base) % mod;
    exp >>= 1;
  }
  return result;
}

/** Keep value inside [lo, hi]. */
export function clamp(value: f64, lo: f64, hi: f64): f64 {
  return value < lo ? lo : value > hi ? hi : value;
}
"""

STRINGS_TS = """\
/** The characters of s in reverse order. */
export function reverse(s: string): string {
  let out = "";
  for (let i = s.length - 1; i >= 0; i--) out += s.charAt(i);
  return out;
}

export function isPalindrome(s: string): bool {
  return reverse(s) == s;
}

/** How often the one-character string c occurs in s. */
export function countChar(s: string, c: string): i32 {
  const code = c.charCodeAt(0);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) == code) n++;
  }
  return n;
}

/** Shift lower-case letters by shift places (mod 26); leave everything else alone. */
export function caesar(s: string, shift: i32): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 97 && c <= 122) {
      out += String.fromCharCode(97 + ((c - 97 + shift) % 26));
    } else {
      out += String.fromCharCode(c);
    }
  }
  return out;
}

/** Upper-case the first character of every word. */
export function titleCase(s: string): string {
  let out = "";
  let start = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (start && c >= 97 && c <= 122) {
      out += String.fromCharCode(c - 32);
    } else {
      out += String.fromCharCode(c);
    }
    start = c == 32;
  }
  return out;
}

export function joinWords(words: string[], sep: string): string {
  return words.join(sep);
}
"""

ARRAYS_TS = """\
import { isPrime } from "./numeric";

/** [0, 1, ..., n - 1] */
export function range(n: i32): i32[] {
  const out = new Array<i32>(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

export function sum(xs: i32[]): i64 {
  let total: i64 = 0;
  for (let i = 0; i < xs.length; i++) total += xs[i];
  return total;
}

export function maxOf(xs: i32[]): i32 {
  let best = xs[0];
  for (let i = 1; i < xs.length; i++) {
    if (xs[i] > best) best = xs[i];
  }
  return best;
}

/** A sorted copy (insertion sort). */
export function sorted(xs: i32[]): i32[] {
  const out = xs.slice(0);
  for (let i = 1; i < out.length; i++) {
    const v = out[i];
    let j = i - 1;
    while (j >= 0 && out[j] > v) {
      out[j + 1] = out[j];
      j--;
    }
    out[j + 1] = v;
  }
  return out;
}

/** A sorted array without repeats. */
export function unique(xs: i32[]): i32[] {
  const s = sorted(xs);
  const out = new Array<i32>();
  for (let i = 0; i < s.length; i++) {
    if (i == 0 || s[i] != s[i - 1]) out.push(s[i]);
  }
  return out;
}

export function primesBelow(n: i32): i32[] {
  const out = new Array<i32>();
  for (let i = 2; i < n; i++) {
    if (isPrime(i)) out.push(i);
  }
  return out;
}

export function dot(a: f64[], b: f64[]): f64 {
  let total = 0.0;
  for (let i = 0; i < a.length; i++) total += a[i] * b[i];
  return total;
}
"""

LIBS = {"numeric.ts": NUMERIC_TS, "strings.ts": STRINGS_TS, "arrays.ts": ARRAYS_TS}

# The shared constant of a suite generated with ``shared_edition`` (run_library_edit_bench.py):
# every spec imports it from lib/numeric, so an edit of its value rebuilds and reruns every spec.
EDITION_NAME = "EDITION"


def numeric_source(edition: int | None = None) -> str:
    """lib/numeric.ts; with an ``edition``, it also exports the EDITION constant at that value.

    Every spec's revision block checks EDITION, so the value is compiled into every spec's wasm:
    a new value changes every module, never a verdict.
    """
    if edition is None:
        return NUMERIC_TS
    return (
        NUMERIC_TS
        + f"""
/** The helpers' edition: bench/run_library_edit_bench.py bumps it to edit the library. */
export const {EDITION_NAME}: i32 = {edition};
"""
    )


WORDS = [
    "alpha", "bravo", "level", "river", "stone", "kayak", "maple", "orbit", "radar", "cedar",
    "pixel", "tenet", "amber", "civic", "delta", "ember", "refer", "falcon", "glyph", "harbor",
]  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Python twins of the helpers: the expected values in the specs come from these.


def py_gcd(a: int, b: int) -> int:
    return math.gcd(a, b)


def py_fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def py_is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, math.isqrt(n) + 1))


def py_collatz(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def py_caesar(s: str, shift: int) -> str:
    return "".join(chr(97 + (ord(c) - 97 + shift) % 26) if "a" <= c <= "z" else c for c in s)


def py_title(s: str) -> str:
    out, start = [], True
    for c in s:
        out.append(c.upper() if start and "a" <= c <= "z" else c)
        start = c == " "
    return "".join(out)


def ts_bool(value: bool) -> str:
    return "true" if value else "false"


def ts_str(value: str) -> str:
    return json.dumps(value)


def ts_ints(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def ts_float(value: float) -> str:
    text = repr(value)
    return text if "." in text or "e" in text else text + ".0"


# ---------------------------------------------------------------------------------------------
# Describe blocks. Each returns (imports it needs as {module: names}, source text).

Block = tuple[dict[str, set[str]], str]
# A block maker gets the spec's random source and a tag unique within the spec (for local names).
BlockMaker = Callable[[random.Random, str], Block]


def numeric_block(rng: random.Random, tag: str) -> Block:
    k = rng.randint(1, 40)
    a, b = 6 * k + rng.randint(0, 5), 4 * k + rng.randint(0, 3)
    n = rng.randint(10, 60)
    p = rng.randint(50, 400)
    c = rng.randint(3, 200)
    base, exp, mod = rng.randint(2, 50), rng.randint(5, 60), rng.choice([97, 1009, 65537])
    m = rng.randint(10, 2000)
    src = f"""\
describe("numeric helpers ({k})", () => {{
  test("gcd", () => {{
    expect(gcd({a}, {b})).toBe({py_gcd(a, b)});
    expect(gcd(-{a}, {b})).toBe({py_gcd(a, b)});
    expect(gcd({a}, 0)).toBe({a});
  }});

  test("fibonacci and sums", () => {{
    expect<i64>(fib({n})).toBe({py_fib(n)});
    expect<i64>(fib({n + 1}) - fib({n})).toBe({py_fib(n - 1)});
    expect<i64>(sumTo({m})).toBe({m * (m + 1) // 2});
  }});

  test("primes and collatz", () => {{
    expect(isPrime({p})).toBe({ts_bool(py_is_prime(p))});
    expect(collatzSteps({c})).toBe({py_collatz(c)});
    expect(collatzSteps({c})).toBeGreaterOrEqualTo(0);
  }});

  test("modular powers", () => {{
    expect<i64>(powMod({base}, {exp}, {mod})).toBe({pow(base, exp, mod)});
    expect<i64>(powMod({base}, 0, {mod})).toBe(1);
  }});
}});
"""
    return {"numeric": {"gcd", "fib", "sumTo", "isPrime", "collatzSteps", "powMod"}}, src


def strings_block(rng: random.Random, tag: str) -> Block:
    words = rng.sample(WORDS, 3)
    w = words[0]
    shift = rng.randint(1, 25)
    phrase = " ".join(words)
    letter = rng.choice(sorted(set(phrase.replace(" ", ""))))
    src = f"""\
describe("string helpers ({w})", () => {{
  test("reverse and palindromes", () => {{
    expect(reverse({ts_str(w)})).toBe({ts_str(w[::-1])});
    expect(isPalindrome({ts_str(w)})).toBe({ts_bool(w == w[::-1])});
    expect(isPalindrome(reverse({ts_str(w)}))).toBe({ts_bool(w == w[::-1])});
  }});

  test("caesar shifts", () => {{
    const secret = caesar({ts_str(phrase)}, {shift});
    expect(secret).toBe({ts_str(py_caesar(phrase, shift))});
    expect(caesar(secret, {26 - shift})).toBe({ts_str(phrase)});
  }});

  it("counts, joins and capitalises", () => {{
    expect(countChar({ts_str(phrase)}, {ts_str(letter)})).toBe({phrase.count(letter)});
    expect(joinWords([{", ".join(ts_str(x) for x in words)}], "-")).toBe({ts_str("-".join(words))});
    expect(titleCase({ts_str(phrase)})).toStartWith({ts_str(py_title(phrase).split(" ")[0])});
    expect(titleCase({ts_str(phrase)})).toBe({ts_str(py_title(phrase))});
  }});
}});
"""
    return {
        "strings": {"reverse", "isPalindrome", "caesar", "countChar", "joinWords", "titleCase"}
    }, src


def arrays_block(rng: random.Random, tag: str) -> Block:
    xs = [rng.randint(-50, 99) for _ in range(rng.randint(6, 14))]
    xs[rng.randrange(len(xs))] = xs[0]  # at least one repeat for unique()
    n = rng.randint(5, 40)
    lim = rng.randint(10, 120)
    primes = [q for q in range(2, lim) if py_is_prime(q)]
    a = [float(rng.randint(-8, 8)) / 2 for _ in range(4)]
    b = [float(rng.randint(-8, 8)) / 4 for _ in range(4)]
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    # Module level: AssemblyScript closures cannot capture a describe callback's locals.
    v = f"xs{tag}"
    a_lit = ", ".join(ts_float(x) for x in a)
    b_lit = ", ".join(ts_float(x) for x in b)
    src = f"""\
const {v}: i32[] = {ts_ints(xs)};

describe("array helpers ({len(xs)})", () => {{
  test("range and sum", () => {{
    expect(range({n})).toHaveLength({n});
    expect<i64>(sum(range({n}))).toBe({n * (n - 1) // 2});
    expect<i64>(sum({v})).toBe({sum(xs)});
  }});

  test("sorting", () => {{
    const s = sorted({v});
    expect(s).toHaveLength({len(xs)});
    expect(s[0]).toBe({min(xs)});
    expect(s[{len(xs) - 1}]).toBe({max(xs)});
    expect(maxOf({v})).toBe({max(xs)});
    expect(unique({v})).toHaveLength({len(set(xs))});
  }});

  test("primes and dot products", () => {{
    const ps = primesBelow({lim});
    expect(ps).toHaveLength({len(primes)});
    expect(ps).toContain({primes[-1]});
    expect(dot([{a_lit}], [{b_lit}])).toBeCloseTo({ts_float(dot)});
  }});
}});
"""
    return {"arrays": {"range", "sum", "sorted", "maxOf", "unique", "primesBelow", "dot"}}, src


def local_block(rng: random.Random, tag: str) -> Block:
    """Self-contained code: a small class and a function defined in the spec itself."""
    start = rng.randint(0, 100)
    steps = [rng.randint(1, 30) for _ in range(rng.randint(3, 7))]
    cap = rng.randint(5, 15)
    n = rng.randint(3, 30)
    tri = n * (n + 1) // 2
    name = f"Counter{tag}"
    tri_fn = f"triangle{tag}"
    adds = "".join(f"    c.add({s});\n" for s in steps)
    src = f"""\
class {name} {{
  value: i32;
  history: i32[] = [];

  constructor(start: i32) {{
    this.value = start;
  }}

  add(step: i32): {name} {{
    this.history.push(this.value);
    this.value += step;
    return this;
  }}
}}

function {tri_fn}(n: i32): i32 {{
  let total = 0;
  for (let i = 1; i <= n; i++) total += i;
  return total;
}}

describe("local code ({name})", () => {{
  test("a counter remembers its history", () => {{
    const c = new {name}({start});
{adds}    expect(c.value).toBe({start + sum(steps)});
    expect(c.history).toHaveLength({len(steps)});
    expect(c.history[0]).toBe({start});
  }});

  test("triangle numbers", () => {{
    expect({tri_fn}({n})).toBe({tri});
    expect({tri_fn}({cap})).toBeLessThan({cap * cap + 1});
    expect({tri_fn}(0)).toBe(0);
  }});

  test("strings from numbers", () => {{
    expect(({tri}).toString()).toBe({ts_str(str(tri))});
    expect(({tri}).toString().length).toBe({len(str(tri))});
  }});
}});
"""
    return {}, src


BLOCKS: list[BlockMaker] = [
    numeric_block,
    strings_block,
    arrays_block,
    local_block,
]


def spec_name(index: int) -> str:
    return f"s{index:04d}"


def spec_source(index: int, revision: int = 0, shared_edition: bool = False) -> str:
    """The source of spec ``index``. ``revision`` changes its code (and its wasm), not its verdict.

    run_bench.py rewrites one spec with a new revision to measure a one-spec-changed rerun.
    ``shared_edition``: the spec also imports lib/numeric's EDITION and checks it, so that every
    spec, the self-contained ones too, depends on that library file.
    """
    rng = random.Random(f"astest-bench-spec-{index}")
    kinds: list[BlockMaker]
    if index % 5 == 4:
        kinds = [local_block, local_block]  # self-contained: imports no helper
    else:
        kinds = [BLOCKS[(index + j) % len(BLOCKS)] for j in range(3)]
    imports: dict[str, set[str]] = {}
    bodies: list[str] = []
    for position, make in enumerate(kinds):
        needs, body = make(rng, "ABCDEFGH"[position])
        for module, names in needs.items():
            imports.setdefault(module, set()).update(names)
        bodies.append(body)
    if shared_edition:
        imports.setdefault("numeric", set()).add(EDITION_NAME)
    framework = ["describe", "expect", "test"]
    if any("\n  it(" in body for body in bodies):
        framework.append("it")
    lines = [f'import {{ {", ".join(sorted(framework))} }} from "as-test";']
    for module in sorted(imports):
        lines.append(f'import {{ {", ".join(sorted(imports[module]))} }} from "../lib/{module}";')
    header = "\n".join(lines) + "\n\n"
    header += f"// generated by bench/generate_suite.py: spec {index}, revision {revision}\n"
    header += f"const REVISION: i32 = {revision};\n\n"
    edition_test = f"""
  test("sees the library's edition", () => {{
    expect({EDITION_NAME}).toBeGreaterOrEqualTo(0);
  }});
"""
    revision_block = f"""\
describe("revision", () => {{
  test("is the one generated", () => {{
    expect(REVISION * 3 + 1).toBe({revision * 3 + 1});
  }});
{edition_test if shared_edition else ""}}});
"""
    return header + "\n".join(bodies) + "\n" + revision_block


def spec_path(project: Path, index: int) -> Path:
    return project / SPEC_DIR / f"{spec_name(index)}.spec.ts"


def project_files(
    count: int, toolchain: str = "1.0.7", shared_edition: bool = False
) -> dict[Path, str]:
    """Every file of the generated project, relative path -> content; ``toolchain`` is the
    as-test version package.json pins (a key of TOOLCHAINS); ``shared_edition``: every spec
    imports lib/numeric's EDITION, at edition 0 (see spec_source)."""
    files: dict[Path, str] = {}
    files[Path("package.json")] = (
        json.dumps(
            {
                "name": f"astest-bench-suite-{count}",
                "private": True,
                "type": "module",
                "devDependencies": TOOLCHAINS[toolchain],
            },
            indent=2,
        )
        + "\n"
    )
    # One wasi target, no modes: as-test 1.0.7 and astest-tasks then both run the base config
    # once (astest-tasks names it mode "default"), with as-test's stock Node WASI runner.
    files[Path("as-test.config.json")] = (
        json.dumps(
            {
                "$schema": "node_modules/as-test/as-test.config.schema.json",
                "input": [SPEC_GLOB],
                "output": ".as-test/",
                "config": "none",
                "coverage": False,
                "buildOptions": {"target": "wasi"},
            },
            indent=2,
        )
        + "\n"
    )
    files[Path("dodo.py")] = (
        '"""Benchmark suite: every as-test spec as an incremental doit task."""\n\n'
        "from astest_tasks import task_astest  # noqa: F401\n\n"
        'DOIT_CONFIG = {"backend": "sqlite3", "verbosity": 1}\n'
    )
    for name, text in LIBS.items():
        files[LIB_DIR / name] = text
    if shared_edition:
        files[LIB_DIR / "numeric.ts"] = numeric_source(0)
    for index in range(count):
        files[SPEC_DIR / f"{spec_name(index)}.spec.ts"] = spec_source(
            index, shared_edition=shared_edition
        )
    return files


def write_if_changed(path: Path, text: str) -> bool:
    if path.is_file() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return True


def generate(
    project: Path,
    count: int,
    node_modules: Path | None = None,
    toolchain: str = "1.0.7",
    shared_edition: bool = False,
) -> int:
    """Write (or bring up to date) the suite of ``count`` specs in ``project``.

    Files whose content is already right are left alone (their mtimes too); spec files beyond
    ``count`` are removed. Returns the number of files written.
    """
    if count < 1:
        raise ValueError(f"need at least one spec, got {count}")
    files = project_files(count, toolchain, shared_edition)
    written = sum(write_if_changed(project / rel, text) for rel, text in files.items())
    spec_dir = project / SPEC_DIR
    for stale in spec_dir.glob("*.spec.ts"):
        if stale.relative_to(project) not in files:
            stale.unlink()
    if node_modules is not None:
        link_node_modules(project, node_modules)
    return written


def link_node_modules(project: Path, node_modules: Path) -> None:
    """Point the project's ``node_modules`` at ``node_modules`` (a toolchain), replacing a link
    to another one."""
    link = project / "node_modules"
    if link.is_symlink() and link.resolve() != node_modules.resolve():
        link.unlink()
    if not link.exists() and not link.is_symlink():
        link.symlink_to(node_modules.resolve(), target_is_directory=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("count", type=int, help="number of specs")
    parser.add_argument("project", type=Path, help="folder to write the project into")
    parser.add_argument(
        "--node-modules",
        type=Path,
        default=None,
        help="symlink this node_modules folder into the project",
    )
    parser.add_argument(
        "--toolchain",
        choices=sorted(TOOLCHAINS),
        default="1.0.7",
        help="the as-test version package.json pins [1.0.7]",
    )
    parser.add_argument(
        "--shared-edition",
        action="store_true",
        help="every spec imports and checks lib/numeric's EDITION constant (a library edit then "
        "rebuilds every spec)",
    )
    args = parser.parse_args(argv)
    written = generate(
        args.project, args.count, args.node_modules, args.toolchain, args.shared_edition
    )
    print(f"{args.project}: {args.count} specs ({written} files written)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
