// Runs one spec in the browser for astest-tasks. The spec's raw bindings helper (written by asc
// beside the wasm) calls the JS globals process.stdout.write and process.stdin.read, as under
// as-test's own web runner; here they are synchronous requests to the Python host, which feeds
// the bytes to its WIPC channel and answers with whatever replies the channel has queued.

function request(path, body) {
  const xhr = new XMLHttpRequest();
  xhr.open("POST", path, false);
  xhr.responseType = "arraybuffer";
  xhr.send(body);
  if (xhr.status !== 200) throw new Error(`the host refused ${path}: HTTP ${xhr.status}`);
  return xhr.response;
}

self.onmessage = async (event) => {
  const base = event.data.base;
  const toBytes = (data) => (typeof data === "string" ? new TextEncoder().encode(data) : new Uint8Array(data));
  globalThis.process = {
    stdout: { write: (data) => (request(base + "/stdout", toBytes(data)), true) },
    stderr: { write: (data) => (request(base + "/stderr", toBytes(data)), true) },
    stdin: { read: (max) => request(`${base}/stdin?max=${max >>> 0}`, null) },
  };
  const exit = (query, text) => request(`${base}/exit?${query}`, toBytes(text));
  try {
    const helper = await import(base + "/helper.js");
    const module = await WebAssembly.compileStreaming(fetch(base + "/spec.wasm"));
    await helper.instantiate(module, {});
    exit("code=0", "");
  } catch (error) {
    const kind = error instanceof WebAssembly.RuntimeError ? "trap" : "error";
    exit(`code=1&kind=${kind}`, String((error && error.stack) || error));
  }
  self.postMessage("done");
  self.close();
};
