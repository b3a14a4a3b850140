#!/usr/bin/env python3
"""The page's figures, in headless Chromium on this machine: what `scripts/web bench` runs
after a release build of the page (target/web/).

    scripts/web_bench.py --flagsim target/release/flagsim [--folder target/web] [--quick]

Prints JSON: the .wasm's size (after wasm-opt where scripts/web ran it) and gzipped; on each backend (WebGL2 on
SwiftShader, WebGPU on SwiftShader's Vulkan) the first frame's time after the page began to
load (the median of three loads) and the frames a second the default flag draws over ten
seconds (the page's animation frames: the viewer draws one each while the flag moves); the
default flag's step in wasm (`bench_step`, exported by the page) beside the desktop's
(`flagsim simulate flag --steps N`, the same steps), in the same run.
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
