// A stand-in for astest_tasks/asc_server.mjs that speaks its protocol without compiling, so the
// client's framing, time limits, retries and process handling can be tested quickly.
//
// The handshake depends on the "assemblyscript root" argument's last path part:
//   not-ready  -> {"ready": false, "error": ...};  silent -> no handshake;  exit -> exit at once;
//   serial     -> ready, and each request waits until the one before it was answered, as the
//                 real server's queue does (otherwise requests are answered as they come).
// Each request's argv[0] says what to do with it:
//   ok         -> status 0, stdout "pid=<pid> probe=<env.PROBE> cwd=<cwd> flags=<v8 flags>"
//   fail       -> status 1, stderr "ERROR: fake failure"
//   die        -> print last words to stderr, exit 3
//   die-once:F -> like die when file F does not exist yet (and create it), else like ok
//   hang       -> never answer;  sleep:MS -> answer like ok after MS milliseconds
//   hang-telling:F -> write "received" into the FIFO F (so a test knows), then never answer
//   recycle    -> like ok, asking the client to retire this server
//   garbage    -> answer with a line that is not JSON;  wrong-id -> answer with another id
import { existsSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const b64 = (text) => Buffer.from(text).toString("base64");
const mode = basename(process.argv[2] ?? "");

if (mode === "exit") process.exit(4);
if (mode === "not-ready") {
  send({ ready: false, protocol: 1, error: "fake asc is too old" });
  process.exit(1);
}
if (mode !== "silent") send({ ready: true, protocol: 1, asc: "0.0.0-fake", node: process.version });

function ok(request, recycle = false) {
  const flags = process.argv.slice(3).join(",");
  const text = `pid=${process.pid} probe=${request.env.PROBE} cwd=${request.cwd} flags=${flags}`;
  send({ id: request.id, status: 0, stdout: b64(text), stderr: b64(""), recycle });
}

function die() {
  process.stderr.write("fake server: last words\n");
  process.exit(3);
}

// Answers one request; the promise settles once it is answered (never, for a hang).
function handle(request) {
  const [what] = request.argv;
  if (what === "ok") ok(request);
  else if (what === "fail") {
    send({ id: request.id, status: 1, stdout: "", stderr: b64("ERROR: fake failure\n") });
  } else if (what === "die") die();
  else if (what.startsWith("die-once:")) {
    const marker = what.slice("die-once:".length);
    if (existsSync(marker)) ok(request);
    else {
      writeFileSync(marker, "");
      die();
    }
  } else if (what === "hang") {
    return new Promise(() => {});
  } else if (what.startsWith("hang-telling:")) {
    return writeFile(what.slice("hang-telling:".length), "received").then(() => new Promise(() => {}));
  } else if (what.startsWith("sleep:")) {
    return new Promise((done) => setTimeout(() => done(ok(request)), Number(what.slice(6))));
  } else if (what === "recycle") ok(request, true);
  else if (what === "garbage") process.stdout.write("this is not json\n");
  else if (what === "wrong-id") send({ id: `${request.id}-other`, status: 0, stdout: "", stderr: "" });
  return Promise.resolve();
}

let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on("close", () => process.exit(0));
lines.on("line", (line) => {
  const request = JSON.parse(line);
  if (mode === "serial") queue = queue.then(() => handle(request));
  else handle(request);
});
