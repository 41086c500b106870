// A long-lived AssemblyScript compiler for astest-tasks (driven by compile_server.py).
//
// Spawning `node asc.js` costs about 0.5 s of Node start-up and module loading per spec; calling
// asc's `main` again in a warm process costs a fraction of the compile. One asc call per request:
// asc links every entry file of a call into one module, so requests are never batched.
//
// Protocol: JSON lines. The first line on stdout is the handshake
//   {"ready": true, "protocol": 1, "asc": "<version>", "node": "<version>"}
// or {"ready": false, "protocol": 1, "error": "..."}; then, for each request line on stdin
//   {"id": ID, "argv": [...asc argv...], "cwd": "/abs/dir", "env": {...the whole environment...}}
// exactly one response line, with the request's own id (a string the client chose)
//   {"id": ID, "status": 0|1, "stdout": "<base64>", "stderr": "<base64>", "recycle": bool}
// `status` is what a spawned `node bin/asc.js` exits with (its wrapper maps any failure to 1).
// `stdout`/`stderr` are the bytes asc (and the transforms, and binaryen) wrote while compiling
// that request, kept apart from the protocol stream. `recycle` asks the client to retire this
// process: asc called process.exit or threw, and its global state can no longer be trusted.
// The process exits when stdin reaches end of file, even in the middle of a compile: its client
// is gone and nobody will read the result. It also exits when the process that started it is
// gone (its parent pid changes: an orphan is adopted), for processes forked from that client
// (doit's -n workers) hold copies of our stdin and may outlive it.
//
// Arguments: the assemblyscript package root of the project (resolved by the client the way Node
// resolves it from the project directory), so the project's own compiler version is used; then
// V8 flags for this server (compile_pool.py chooses them), set before asc and binaryen load.

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";

const PROTOCOL = 1;

// Each compile leaves its whole program behind as garbage, and V8 lets the heap grow to several
// times what is live before it collects: 20 small specs compiled in one process reached 420-470
// MB of RSS with about 65 MB live, more than a big suite's guest. Growing the heap by at most
// half again between collections keeps it near 300 MB at the same speed (measured: the 20
// compiles took 3.2 s either way). Forcing a full collection after each compile instead undid
// V8's optimisation of asc (compiles 2.5 times slower). Set here rather than on the command
// line: a V8 without this flag only logs an error, where Node would refuse to start.
setFlagsFromString("--heap-growing-percent=50");
for (const flag of process.argv.slice(3)) setFlagsFromString(flag);

// Protocol lines go through the real stdout stream's own write (synchronous for pipes on Linux,
// and it copes with a full pipe); everything else that writes to process.stdout/stderr — asc's
// crash report, transforms' console.log, binaryen's printing — is redirected to the current
// request's capture, or to our stderr (a log file the client reads when we die) between requests.
const protocolWrite = process.stdout.write.bind(process.stdout);
const errorWrite = process.stderr.write.bind(process.stderr);
// process.exit is replaced while a compile runs; leaving the server must not be caught by that.
const exitServer = process.exit.bind(process);
let sink = null;

function send(message) {
  protocolWrite(JSON.stringify(message) + "\n");
}

process.stdout.write = function (chunk, encoding, callback) {
  return redirect(sink?.stdout, chunk, encoding, callback);
};
process.stderr.write = function (chunk, encoding, callback) {
  return redirect(sink?.stderr, chunk, encoding, callback);
};

function redirect(capture, chunk, encoding, callback) {
  if (capture === undefined) return errorWrite(chunk, encoding, callback);
  capture.write(chunk, encoding);
  const done = typeof encoding === "function" ? encoding : callback;
  if (typeof done === "function") queueMicrotask(() => done());
  return true;
}

class Capture {
  chunks = [];
  closed = false;
  write(chunk, encoding) {
    // A spawned asc prints nothing after process.exit; asc here goes on to report the "error".
    if (this.closed) return true;
    const text = typeof encoding === "string" ? encoding : "utf8";
    this.chunks.push(typeof chunk === "string" ? Buffer.from(chunk, text) : Buffer.from(chunk));
    return true;
  }
  base64() {
    return Buffer.concat(this.chunks).toString("base64");
  }
}

// asc's crash handler (and maybe a transform) calls process.exit; in here that must end the
// request, not the server. asc catches what a transform hook throws and reports it as a failure,
// so the exit is also recorded where asc cannot swallow it.
class ExitRequested extends Error {
  constructor(code) {
    super(`process.exit(${code}) called during a compile`);
    this.code = code;
  }
}

async function loadCompiler(ascRoot) {
  const asc = await import(pathToFileURL(join(ascRoot, "dist", "asc.js")).href);
  // The same module instance asc uses: both resolve "binaryen" from the assemblyscript package.
  const binaryen = (await import(pathToFileURL(join(ascRoot, "lib", "binaryen.js")).href)).default;
  if (typeof asc.main !== "function" || typeof asc.libraryFiles !== "object") {
    throw new Error("this assemblyscript has no asc.main/asc.libraryFiles API");
  }
  return { asc, binaryen };
}

// --- asc's global state, as a fresh process has it -------------------------------------------
// asc.libraryFiles: `--lib` dirs (the wasi-shim asconfig adds one) are added to this exported
// object and never removed, so a later bindings compile would still parse the wasi-shim library.
// Binaryen's optimizer settings are process globals; asc sets them on every compile today, but a
// transform (or an asc that crashed half-way) may leave them changed.
const BINARYEN_SETTINGS = [
  "OptimizeLevel",
  "ShrinkLevel",
  "DebugInfo",
  "TrapsNeverHappen",
  "ClosedWorld",
  "LowMemoryUnused",
  "ZeroFilledMemory",
  "FastMath",
  "GenerateStackIR",
  "OptimizeStackIR",
  "AlwaysInlineMaxSize",
  "FlexibleInlineMaxSize",
  "OneCallerInlineMaxSize",
  "AllowInliningFunctionsWithLoops",
];

function snapshotGlobals({ asc, binaryen }) {
  const settings = BINARYEN_SETTINGS.filter(
    (name) => typeof binaryen[`get${name}`] === "function" && typeof binaryen[`set${name}`] === "function",
  ).map((name) => [name, binaryen[`get${name}`]()]);
  return {
    libraryFiles: new Map(Object.entries(asc.libraryFiles)),
    settings,
    env: { ...process.env },
    cwd: process.cwd(),
    exit: process.exit,
  };
}

function restoreGlobals({ asc, binaryen }, pristine) {
  const library = asc.libraryFiles;
  for (const key of Object.keys(library)) {
    if (!pristine.libraryFiles.has(key)) delete library[key];
  }
  for (const [key, text] of pristine.libraryFiles) {
    if (library[key] !== text) library[key] = text;
  }
  for (const [name, value] of pristine.settings) binaryen[`set${name}`](value);
  // A fresh process has no pass arguments and no passes to skip.
  binaryen.clearPassArguments?.();
  binaryen.clearPassesToSkip?.();
  replaceEnv(pristine.env);
  process.chdir(pristine.cwd);
  process.exit = pristine.exit;
  process.exitCode = undefined;
}

// The as-test transform reads process.env (AS_TEST_COVERAGE_ENABLED) while compiling, and a
// spawned asc would see exactly the client's environment: mirror it for one compile.
function replaceEnv(env) {
  for (const key of Object.keys(process.env)) {
    if (!Object.hasOwn(env, key)) delete process.env[key];
  }
  for (const [key, value] of Object.entries(env)) {
    if (process.env[key] !== value) process.env[key] = value;
  }
}

// asc reads every file with fs.promises: open, stat, read and close, each a trip through libuv's
// thread pool, and a failed open for every place a library import might be (about 150 reads per
// spec). Measured in one warm process, compiles alternating with and without it: 30% of a
// compile's CPU time. Reading synchronously gives asc the same text, or null, for each name (its
// own reader's contract; a compile runs alone here, so nothing waits on the event loop), and
// counts each read in the Stats asc prints for --stats, as its own reader does.
function readingAtOnce(asc) {
  if (typeof asc.Stats !== "function") return {};
  const stats = new asc.Stats();
  async function readFile(filename, baseDir) {
    stats.readCount++;
    try {
      return readFileSync(resolve(baseDir, filename), "utf8");
    } catch {
      return null;
    }
  }
  return { stats, readFile };
}

async function compile(compiler, pristine, request) {
  const capture = { stdout: new Capture(), stderr: new Capture() };
  let status = 1;
  let recycle = false;
  let exitCode = null;
  sink = capture;
  try {
    replaceEnv(request.env);
    process.chdir(request.cwd);
    process.exit = (code) => {
      exitCode ??= code ?? process.exitCode ?? 0;
      capture.stdout.closed = capture.stderr.closed = true;
      throw new ExitRequested(code);
    };
    const result = await compiler.asc.main(request.argv, {
      stdout: capture.stdout,
      stderr: capture.stderr,
      ...readingAtOnce(compiler.asc),
    });
    status = result.error ? 1 : 0;
  } catch (error) {
    recycle = true;
    if (exitCode === null) {
      // A spawned asc would die of this uncaught error: Node prints it and exits with 1.
      capture.stderr.write(`${error?.stack ?? error}\n`);
      status = 1;
    }
  } finally {
    if (exitCode !== null) {
      // bin/asc.js maps the exit code of the Node process running asc to 0 or 1.
      status = Number(exitCode) ? 1 : 0;
      recycle = true;
    }
    sink = null;
    try {
      restoreGlobals(compiler, pristine);
    } catch (error) {
      capture.stderr.write(`astest-tasks: could not restore the compiler's state: ${error}\n`);
      recycle = true;
    }
  }
  return {
    id: request.id,
    status,
    stdout: capture.stdout.base64(),
    stderr: capture.stderr.base64(),
    recycle,
  };
}

async function serve(ascRoot) {
  let compiler;
  try {
    compiler = await loadCompiler(ascRoot);
  } catch (error) {
    send({ ready: false, protocol: PROTOCOL, error: String(error?.stack ?? error) });
    exitServer(1);
  }
  const pristine = snapshotGlobals(compiler);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("close", () => exitServer(0));
  send({ ready: true, protocol: PROTOCOL, asc: compiler.asc.version, node: process.version });
  // One compile at a time: asc's globals (and process.env/cwd) are shared by the whole process.
  let queue = Promise.resolve();
  lines.on("line", (line) => {
    if (!line.trim()) return;
    queue = queue.then(async () => {
      let request;
      try {
        request = JSON.parse(line);
      } catch (error) {
        errorWrite(`astest-tasks: unreadable request: ${error}\n`);
        exitServer(2);
      }
      send(await compile(compiler, pristine, request));
    });
  });
}

// Something escaped a compile (a transform's stray timer, say): the state is unknown, so stop;
// the client restarts us and retries the request once.
process.on("uncaughtException", (error) => {
  errorWrite(`astest-tasks compile server: uncaught ${error?.stack ?? error}\n`);
  exitServer(70);
});

// Checked whenever the event loop runs (a compile in progress finishes first); unref'd, so the
// check itself never keeps the server alive.
const PARENT_CHECK_MS = 500;
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) exitServer(0);
}, PARENT_CHECK_MS).unref();

await serve(process.argv[2]);
