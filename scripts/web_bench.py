#!/usr/bin/env python3
"""The page's figures, in headless Chromium on this machine: what `scripts/web bench` runs
after a release build of the page (target/web/).

    scripts/web_bench.py --flagsim target/release/flagsim [--folder target/web] [--quick]

Prints JSON: the .wasm's size (after wasm-opt where scripts/web ran it) and gzipped; on each
backend (WebGL2 on SwiftShader, WebGPU on SwiftShader's Vulkan) the first frame's time after
the page began to load (the median of three loads) and the frames a second the default flag
draws over ten seconds (the page's animation frames: the viewer draws one each while the flag
moves), beside the browser's own ceiling there (a canvas of the same size drawn by one
full-screen pass each frame); the default flag's step in wasm (`bench_step`, exported by the
page) beside the desktop's (`flagsim simulate flag --steps N`, the same steps), in the same run.
"""

import argparse
import functools
import gzip
import http.server
import json
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
BASE = ["--no-sandbox", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
BACKENDS = {
    "webgl2": ["--use-angle=swiftshader"],
    "webgpu": ["--enable-unsafe-webgpu", "--enable-features=Vulkan",
               "--use-vulkan=swiftshader", "--use-angle=swiftshader"],
}
FIRST_FRAME = re.compile(r"first frame (\d+) ms")

# The browser's own ceiling on each backend, beside the page: a canvas that fills the window
# and is drawn each animation frame by one full-screen pass that samples a texture of its
# size, the least a page that draws a picture can do (the viewer draws the sky, the ground,
# the cloth and the panels over the same pixels). `?api=webgl2` or `?api=webgpu`.
CEILING = """<!doctype html><html><body style="margin:0;overflow:hidden">
<canvas id="c" style="width:100vw;height:100vh;display:block"></canvas><script type="module">
const c = document.getElementById("c");
c.width = innerWidth; c.height = innerHeight;
const [w, h] = [c.width, c.height];
if (new URLSearchParams(location.search).get("api") === "webgpu") {
  const device = await (await navigator.gpu.requestAdapter()).requestDevice();
  const format = navigator.gpu.getPreferredCanvasFormat();
  const ctx = c.getContext("webgpu");
  ctx.configure({ device, format, alphaMode: "opaque" });
  const texture = device.createTexture({ size: [w, h], format: "rgba8unorm",
    usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST });
  const module = device.createShaderModule({ code: `
    @group(0) @binding(0) var t: texture_2d<f32>;
    @group(0) @binding(1) var s: sampler;
    @vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
      let v = vec2f(f32((i << 1u) & 2u), f32(i & 2u));
      return vec4f(v * 2.0 - 1.0, 0.0, 1.0);
    }
    @fragment fn fs(@builtin(position) p: vec4f) -> @location(0) vec4f {
      return textureSample(t, s, p.xy / vec2f(${w}.0, ${h}.0)) * 0.5 + 0.25;
    }` });
  const pipeline = device.createRenderPipeline({ layout: "auto",
    vertex: { module, entryPoint: "vs" },
    fragment: { module, entryPoint: "fs", targets: [{ format }] } });
  const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [
    { binding: 0, resource: texture.createView() },
    { binding: 1, resource: device.createSampler({ magFilter: "linear", minFilter: "linear" }) }] });
  const frame = () => {
    const e = device.createCommandEncoder();
    const pass = e.beginRenderPass({ colorAttachments: [{ view: ctx.getCurrentTexture().createView(),
      loadOp: "clear", storeOp: "store", clearValue: [0, 0, 0, 1] }] });
    pass.setPipeline(pipeline); pass.setBindGroup(0, group); pass.draw(3); pass.end();
    device.queue.submit([e.finish()]);
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
} else {
  const gl = c.getContext("webgl2", { antialias: false });
  const shader = (type, text) => {
    const s = gl.createShader(type); gl.shaderSource(s, text); gl.compileShader(s); return s;
  };
  const program = gl.createProgram();
  gl.attachShader(program, shader(gl.VERTEX_SHADER, `#version 300 es
    void main() { vec2 v = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
                  gl_Position = vec4(v * 2.0 - 1.0, 0.0, 1.0); }`));
  gl.attachShader(program, shader(gl.FRAGMENT_SHADER, `#version 300 es
    precision highp float; uniform sampler2D t; out vec4 o;
    void main() { o = texture(t, gl_FragCoord.xy / vec2(${w}.0, ${h}.0)) * 0.5 + 0.25; }`));
  gl.linkProgram(program);
  gl.useProgram(program);
  gl.bindTexture(gl.TEXTURE_2D, gl.createTexture());
  gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA8, w, h);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
  const frame = () => { gl.drawArrays(gl.TRIANGLES, 0, 3); requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
}
</script></body></html>"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder):
    handler = functools.partial(Quiet, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/index.html"


def open_page(browser, url):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    lines = []
    page.on("console", lambda m: lines.append(m.text))
    page.goto(url)
    end = time.monotonic() + 60
    while time.monotonic() < end:
        for line in lines:
            m = FIRST_FRAME.search(line)
            if m:
                backend = next((l.split("adapter: ", 1)[1].split(",")[0] for l in lines
                                if "adapter: " in l), "?")
                return page, int(m.group(1)), backend
        page.wait_for_timeout(50)
    sys.exit(f"web bench: no first frame within 60 s: {lines[-5:]}")


def ceiling_fps(browser, url, api, seconds):
    """The frames a second of [`CEILING`] drawn through `api` at the page's size."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route("**/ceiling.html*", lambda route: route.fulfill(
        status=200, content_type="text/html", body=CEILING))
    page.goto(url.replace("index.html", f"ceiling.html?api={api}"))
    page.wait_for_timeout(2000)
    fps = frames_per_second(page, seconds)
    page.close()
    if errors:
        sys.exit(f"web bench: the {api} ceiling page failed: {errors}")
    return fps


def frames_per_second(page, seconds):
    return page.evaluate("""(seconds) => new Promise((done) => {
        let frames = 0;
        const start = performance.now();
        const tick = (now) => {
            frames += 1;
            if (now - start < seconds * 1000) requestAnimationFrame(tick);
            else done(frames / ((now - start) / 1000));
        };
        requestAnimationFrame(tick);
    })""", seconds)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--flagsim", required=True)
    ap.add_argument("--folder", default=str(ROOT / "target" / "web"))
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    folder = Path(a.folder)
    wasm = (folder / "flagsim-web_bg.wasm").read_bytes()
    steps = 300 if a.quick else 3000
    loads, seconds = (1, 3) if a.quick else (3, 10)
    opt = subprocess.run(["wasm-opt", "--version"], capture_output=True, text=True) \
        if shutil.which("wasm-opt") else None
    version = re.search(r"\d+", opt.stdout) if opt else None
    out = {
        # scripts/web runs wasm-opt from binaryen 116 on; older ones break the module.
        "wasm_opt": int(version.group()) if version and int(version.group()) >= 116 else None,
        "wasm_bytes": len(wasm),
        "wasm_gzip_bytes": len(gzip.compress(wasm, 9)),
        "browser": subprocess.run([shutil.which("chromium"), "--version"], capture_output=True,
                                  text=True).stdout.strip(),
        "steps": steps,
        "backends": {},
    }
    httpd, url = serve(folder)
    try:
        with sync_playwright() as pw:
            for name, args in BACKENDS.items():
                browser = pw.chromium.launch(executable_path=shutil.which("chromium"),
                                             headless=True, args=BASE + args)
                firsts = []
                for _ in range(loads):
                    page, first, backend = open_page(browser, url)
                    firsts.append(first)
                    page.close()
                page, _, backend = open_page(browser, url)
                page.wait_for_timeout(3000)
                fps = frames_per_second(page, seconds)
                row = {"backend": backend, "first_frame_ms": firsts,
                       "first_frame_median_ms": statistics.median(firsts), "fps": fps}
                if name == "webgl2":
                    # The step alone, in the page's wasm, with the viewer paused meanwhile
                    # by nothing: the viewer's own turns run between, not during, the call.
                    row["step_s"] = page.evaluate(
                        "(steps) => import('./flagsim-web.js').then((m) => m.bench_step('flag', steps))",
                        steps)
                    out["step_wasm_s"] = row["step_s"]
                page.close()
                row["ceiling_fps"] = ceiling_fps(browser, url, name, seconds)
                out["backends"][name] = row
                browser.close()
                print(f"web bench: {name}: {row}", file=sys.stderr, flush=True)
    finally:
        httpd.shutdown()
    native = subprocess.run([a.flagsim, "simulate", "flag", "--steps", str(steps)],
                            capture_output=True, text=True, check=True)
    out["step_native_s"] = json.loads(native.stdout)["stats"]["wall_seconds"] / steps
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
