#!/usr/bin/env python3
"""The viewer as a web page, in a real browser: headless Chromium (the system's) driven by
Playwright, on the static folder `scripts/web build` writes (target/web/).

    tests/web/page.py [--folder target/web] [--backend webgpu|webgl2|both] [--shots DIR]

Each backend gets its own browser: WebGPU on Chromium's software adapter (SwiftShader's Vulkan;
Chromium falls back to WebGL2 where it offers no adapter, and the test says which it ran on),
WebGL2 on SwiftShader with WebGPU off. On each it checks, as a user would see it:

- the page starts with no error on the console and names its backend (the Stats panel's
  adapter line, logged);
- the canvas shows the flag: its colours where the flag flies, the sky above it;
- the Lab panel's search for the largest stable and accurate dt runs beside the page (which
  keeps drawing frames meanwhile) and finds them;
- F12 downloads the frame as a PNG that shows the flag;
- a drag on the flag pulls it where it never flies without the drag;
- the Simulation panel's device *gpu*: on WebGPU the flag steps on the GPU, is drawn from there
  and a drag pulls it as on the CPU, then *cpu* takes it back; on WebGL2 it stays on the CPU;
- the wind speed set to 0 in the Wind panel lets the flag hang: its width shrinks;
- the settings are kept in the browser: the page opened again at its bare address, in the same
  browser, shows the last scene (its wind at 0);
- an image chosen with the page's file input puts its colours on the flag, and so does one
  dropped on the page;
- an image chosen with the Setting panel's background *open…* covers the sky;
- the Capture panel's *record GIF*, stopped a few seconds later, downloads a GIF of the
  canvas's size whose frames show the flag moving;
- a link whose scene blows the wind the other way, with an image by address, opens with that
  image on the flag on the pole's other side;
- a file cut short gives the viewer's error notice, naming the file on the console, and the
  flag stays; the page's own notice (for failures the viewer cannot show) stays hidden.

Missing Chromium or Playwright fails the test under CI=true and skips it loudly elsewhere.
"""

import argparse
import functools
import http.server
import io
import json
import os
import shutil
import sys
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
VIEWPORT = {"width": 1280, "height": 800}
BASE_ARGS = [
    "--no-sandbox",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
BACKEND_ARGS = {
    # A WebGPU canvas is captured only with Chromium's Vulkan on SwiftShader.
    "webgpu": [
        "--enable-unsafe-webgpu",
        "--enable-features=Vulkan",
        "--use-vulkan=swiftshader",
        "--use-angle=swiftshader",
    ],
    "webgl2": ["--use-angle=swiftshader"],
}
# The panel's controls at 1280 × 800 (egui lays them out the same in every run).
SIMULATION_HEADER = (42, 58)
# The Simulation panel's device list (the page opens with that panel open), and its entries.
DEVICE_LIST = (75, 242)
DEVICE_CPU = (52, 269)
DEVICE_GPU = (52, 292)
WIND_SPEED_KNOB = (90, 150)
WIND_SPEED_ZERO = (20, 150)
# With the Simulation panel closed and the Wind panel open (as the wind's check leaves them).
WIND_HEADER = (42, 127)
# With the Simulation and Wind panels closed: the Setting panel's header and its background
# button, then (Setting closed again) the headers below it, each closed in turn.
SETTING_HEADER = (42, 173)
BACKGROUND_OPEN = (55, 242)
OVERLAYS_HEADER = (42, 196)
STATS_HEADER = (42, 219)
# With Simulation closed and Wind open (as the page opens but for Simulation): the Lab panel's
# header, and its search's button once it is open.
LAB_HEADER = (42, 104)
SEARCH_BUTTON = (140, 269)
CAPTURE_HEADER = (42, 242)
# With every panel above Capture closed.
RECORD_BUTTON = (62, 366)


def fail(message):
    print(f"web page test: FAILED: {message}")
    sys.exit(1)


def skip_or_fail(message):
    if os.environ.get("CI") == "true":
        fail(f"{message} (CI=true: a missing browser is a failure)")
    print(f"web page test: SKIPPED: {message}")
    sys.exit(0)


try:
    from PIL import Image, ImageChops
    from playwright.sync_api import sync_playwright
except ImportError as e:
    skip_or_fail(f"{e.name} is not installed (pip install playwright pillow)")


# --- what the pixels are --------------------------------------------------------------------

def is_flag(p):
    """The built-in flag's navy, teal and gold, as lit."""
    r, g, b = p
    navy = r < 70 and g < 90 and 45 < b < 140 and b > r + 25
    teal = r < 100 and g > 100 and b > 90 and g > r + 50
    gold = r > 170 and g > 110 and b < 110 and r > b + 80
    return navy or teal or gold


def is_navy_or_teal(p):
    """The built-in flag's navy and teal, which the test's own image (blue, red, white, gold)
    lacks."""
    r, g, b = p
    navy = r < 45 and g < 65 and 45 < b < 100
    teal = r < 80 and g > 115 and 95 < b < 165 and abs(g - b) < 40
    return navy or teal


def is_red(p):
    """The red of assets/custom-flag.jpg, as lit."""
    return p[0] > 170 and p[1] < 80 and p[2] < 80


def is_purple(p):
    """The purple of assets/flags/tricolour.png, as lit."""
    r, g, b = p
    return 40 < r < 130 and g < 75 and b > 90 and b > g + 40 and r > g + 10


def is_error_notice(p):
    """The viewer's error notice's fill (`ui::notices::ERROR_FILL`, 168, 32, 44)."""
    return abs(p[0] - 168) < 8 and abs(p[1] - 32) < 8 and abs(p[2] - 44) < 8


def is_pole(p):
    """The pole's light grey (the ground's grey is darker and greener, the panel's whiter)."""
    return min(p) > 170 and max(p) < 235 and max(p) - min(p) < 12


def pole_x(image, view):
    """The pole's column: the median x of its grey below the middle of the view."""
    xs = sorted(x for x, _ in mask(image, is_pole, (view[0], view[3] // 2, view[2], view[3])))
    return xs[len(xs) // 2] if xs else None


def is_sky(p):
    r, g, b = p
    return b > 180 and g > 150 and b > r + 25


def pixels(png):
    return Image.open(io.BytesIO(png)).convert("RGB")


def mask(image, test, box=None):
    """The points of `image` (within `box`: x0, y0, x1, y1) where `test` holds, every 2 px."""
    x0, y0, x1, y1 = box or (0, 0, image.width, image.height)
    data = image.load()
    return {(x, y) for y in range(y0, y1, 2) for x in range(x0, x1, 2) if test(data[x, y])}


def view_box(image):
    """The 3-D view, right of the panel (its width follows its longest line: 330–390 px at
    1280 × 800)."""
    return (400, 0, image.width, image.height)


def extent(points):
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    return min(xs), min(ys), max(xs), max(ys)


# --- the page -------------------------------------------------------------------------------

class Server:
    """The static folder on a free port of 127.0.0.1."""

    def __init__(self, folder):
        handler = functools.partial(Quiet, directory=str(folder))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/index.html"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()


class Quiet(http.server.SimpleHTTPRequestHandler):
    """The page's folder, and the repository's assets under /test/ (an image a link names)."""

    def translate_path(self, path):
        if path.startswith("/test/"):
            return str(ROOT / "assets" / Path(path.split("?")[0]).name)
        return super().translate_path(path)

    def log_message(self, *args):
        pass


class Page:
    """One page of the viewer, with its console, in `context` (a browser's profile: pages in
    one context share its local storage)."""

    def __init__(self, context, url):
        self.page = context.new_page()
        self.console = []
        self.page.on("console", lambda m: self.console.append((m.type, m.text)))
        self.page.on("pageerror", lambda e: self.console.append(("error", f"page error: {e}")))
        opened = time.monotonic()
        self.page.goto(url)
        # "adapter: BACKEND, upsampling on the …: NAME"
        self.backend = self.wait_for_log("adapter: ", 30).split("adapter: ", 1)[1].split(",")[0]
        first = self.wait_for_log("first frame", 30)
        self.first_frame_s = time.monotonic() - opened
        self.first_frame_log = first

    def wait_for_log(self, text, limit):
        end = time.monotonic() + limit
        while time.monotonic() < end:
            for kind, line in self.console:
                if kind == "error":
                    fail(f"the console has an error: {line}")
                if text in line:
                    return line
            self.page.wait_for_timeout(100)
        fail(f"no \"{text}\" on the console within {limit} s; it has: {self.console[-10:]}")

    def shot(self, name=None):
        png = self.page.screenshot()
        if SHOTS and name:
            (SHOTS / f"{name}.png").write_bytes(png)
        return pixels(png)

    def errors(self):
        return [line for kind, line in self.console if kind == "error"]

    def notice_shown(self):
        """Whether the page's own notice (for what the viewer cannot show) is on screen."""
        return self.page.evaluate(
            "getComputedStyle(document.getElementById('notice')).display") != "none"

    def click_in_turn(self, *points):
        """Clicks each point, giving the panels time to lay out again before the next."""
        for point in points:
            self.page.mouse.click(*point)
            self.page.wait_for_timeout(1500)

    def flag_over(self, shots, name):
        """The flag's points in any and in every one of `shots` screenshots, 0.5 s apart."""
        anywhere, always = set(), None
        for k in range(shots):
            image = self.shot(f"{name}-{k}")
            points = mask(image, is_flag, view_box(image))
            anywhere |= points
            always = points if always is None else always & points
            self.page.wait_for_timeout(500)
        return anywhere, always


def eventually(page, name, measure, holds, limit=60):
    """Screenshots every 2 s until `holds(measure(image))`, or `limit` s: the flag moves in
    simulated time, which a slow page (a loaded machine, a software GPU) makes slower than the
    wall clock's (at most 8 steps a frame). Returns the last measure."""
    end = time.monotonic() + limit
    k = 0
    while True:
        value = measure(page.shot(f"{name}-{k}"))
        if holds(value) or time.monotonic() > end:
            return value
        page.page.wait_for_timeout(2000)
        k += 1


def drag_below(page, name, view):
    """Drags the flag 200 px below where it flies and holds it there until it is pulled (20 s
    at most): the points of the flag below where it flew. The flag flaps in gusts: a press that
    lands on sky the moment it comes turns the camera instead, so a miss is tried again (from
    the home view) with a new aim; a grab that never takes misses all three."""
    for attempt in range(1, 4):
        flying, steady = page.flag_over(4, f"{name}-flying-{attempt}")
        fx0, fy0, fx1, fy1 = extent(flying)
        # A point the flag covered in every shot, two thirds of the way to its fly edge.
        aim = (fx0 + 2 * (fx1 - fx0) // 3, (fy0 + fy1) // 2)
        grab = min(steady, key=lambda p: (p[0] - aim[0]) ** 2 + (p[1] - aim[1]) ** 2)
        target = (grab[0] - 60, min(VIEWPORT["height"] - 20, fy1 + 200))
        page.page.mouse.move(*grab)
        page.page.mouse.down()
        for k in range(1, 11):
            page.page.mouse.move(grab[0] + (target[0] - grab[0]) * k / 10,
                                 grab[1] + (target[1] - grab[1]) * k / 10)
            page.page.wait_for_timeout(100)

        def below_flight(image):
            pulled = mask(image, is_flag, view) - flying
            return len([p for p in pulled if p[1] > fy1 + 20])

        below = eventually(page, f"{name}-dragged-{attempt}", below_flight,
                           lambda n: n > 200, limit=20)
        page.page.mouse.up()
        if below > 200:
            return below
        print(f"  (drag {attempt} at {grab}: {below} points below where the flag flies)")
        page.page.keyboard.press("Home")
        page.page.wait_for_timeout(3000)
    return below


def check(condition, message):
    if not condition:
        fail(message)
    print(f"  ok: {message}")


def run_backend(playwright, backend, url):
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=BASE_ARGS + BACKEND_ARGS[backend]
    )
    context = browser.new_context(viewport=VIEWPORT)
    page = Page(context, url)
    print(f"web page test: {backend} asked for; the page runs on {page.backend}; "
          f"first frame {page.first_frame_s:.1f} s after opening it")
    if backend == "webgl2":
        check(page.backend == "WebGL2", f"the page runs on WebGL2 without WebGPU ({page.backend})")

    # The flag where it flies, the sky above it.
    page.page.wait_for_timeout(2000)
    image = page.shot(f"{backend}-start")
    view = view_box(image)
    flag = mask(image, is_flag, view)
    area = ((view[2] - view[0]) // 2) * ((view[3] - view[1]) // 2)
    check(len(flag) > 0.04 * area, f"the flag's colours cover {len(flag) / area:.0%} of the view")
    x0, y0, x1, y1 = extent(flag)
    above = (max(view[0], x0), 0, min(view[2], x1), max(2, y0 - 40))
    sky = mask(image, is_sky, above)
    box_area = ((above[2] - above[0]) // 2) * ((above[3] - above[1]) // 2)
    check(len(sky) > 0.9 * box_area, f"sky above the flag ({len(sky) / max(box_area, 1):.0%} of it)")

    # The lab's search for the largest stable and accurate dt, in a worker beside the page: the
    # page keeps drawing frames while it runs, and its findings come (the log names them).
    page.click_in_turn(SIMULATION_HEADER, LAB_HEADER)
    page.page.mouse.click(*SEARCH_BUTTON)
    frames = page.page.evaluate("""() => new Promise((done) => {
        let frames = 0;
        const start = performance.now();
        const tick = (now) => {
            frames += 1;
            if (now - start < 2000) requestAnimationFrame(tick); else done(frames);
        };
        requestAnimationFrame(tick);
    })""")
    searching = not any("largest accurate dt" in line for _, line in page.console)
    check(searching and frames >= 4,
          f"the page drew {frames} frames in the 2 s after the search began"
          + ("" if searching else ", but the search was over by then"))
    end = time.monotonic() + 120
    found = []
    while not found and time.monotonic() < end:
        page.page.wait_for_timeout(500)
        found = [line for _, line in page.console
                 if "largest accurate dt" in line or "no accurate dt" in line]
    check(found and "largest accurate dt" in found[0],
          f"the lab's search found the dt in the page: {found or 'nothing within 120 s'}")
    page.shot(f"{backend}-searched")
    page.click_in_turn(LAB_HEADER, SIMULATION_HEADER)

    # F12: the frame downloads as a PNG with the flag in it.
    page.page.mouse.click(view[0] + 40, 40)
    with page.page.expect_download(timeout=30_000) as shot:
        page.page.keyboard.press("F12")
    png = Path(shot.value.path()).read_bytes()
    saved = pixels(png)
    check(shot.value.suggested_filename.startswith("flagsim-")
          and saved.size == (VIEWPORT["width"], VIEWPORT["height"]),
          f"F12 downloads the frame ({shot.value.suggested_filename}, {saved.size})")
    check(len(mask(saved, is_flag, view)) > 0.5 * len(flag), "the download shows the flag")

    # A drag on the flag pulls it where it never flies by itself.
    below = drag_below(page, backend, view)
    check(below > 200, f"the drag pulled the flag below where it flies ({below} points)")
    page.page.wait_for_timeout(3000)

    # The Simulation panel's device: on WebGPU the flag steps on the GPU (the log says so), is
    # drawn from the GPU's nodes and is dragged there (a grab waits in the page's frames for
    # the GPU's state); WebGL2 has no compute shaders, and its flag stays on the CPU.
    page.click_in_turn(DEVICE_LIST, DEVICE_GPU)
    if backend == "webgpu":
        page.wait_for_log("flag 1 steps on the GPU", 30)
        page.page.wait_for_timeout(2000)
        shown = mask(page.shot(f"{backend}-on-gpu"), is_flag, view)
        check(len(shown) > 0.5 * len(flag), "the flag steps on the GPU and is drawn from there")
        below = drag_below(page, f"{backend}-gpu", view)
        check(below > 200, f"the drag on the GPU pulled the flag below where it flies "
                           f"({below} points)")
        page.page.wait_for_timeout(3000)
        page.click_in_turn(DEVICE_LIST, DEVICE_CPU)
        page.wait_for_log("flag 1 steps on the CPU", 30)
        print("  ok: back on the CPU (the log says so)")
    else:
        page.page.wait_for_timeout(2000)
        on_gpu = [line for _, line in page.console if "steps on the GPU" in line]
        check(not on_gpu, "without WebGPU the flag stays on the CPU")
        page.click_in_turn(DEVICE_LIST, DEVICE_CPU)

    # The wind speed to 0 in the Wind panel: the flag hangs from its pole.
    before, _ = page.flag_over(3, f"{backend}-wind")
    width = extent(before)[2] - extent(before)[0]
    page.page.mouse.click(*SIMULATION_HEADER)
    page.page.wait_for_timeout(1500)
    page.page.mouse.move(*WIND_SPEED_KNOB)
    page.page.mouse.down()
    page.page.mouse.move(*WIND_SPEED_ZERO, steps=5)
    page.page.mouse.up()

    def flag_width(image):
        points = mask(image, is_flag, view)
        return extent(points)[2] - extent(points)[0] if points else 0

    hanging = eventually(page, f"{backend}-no-wind", flag_width, lambda w: w < 0.6 * width)
    fragment = urllib.parse.unquote(page.page.evaluate("location.hash"))
    scene = json.loads(fragment.split("scene=", 1)[1].split("&image=")[0])
    check(scene["params"]["wind"]["velocity"][0] == 0.0,
          "the panel set the wind speed to 0 (the link says so)")
    check(hanging < 0.6 * width,
          f"without wind the flag hangs: {hanging} px wide, {width} px in the wind")

    # The settings kept in the browser (written a second after a change): the bare address
    # opened again shows the last scene, the wind at 0.
    def kept_wind():
        text = page.page.evaluate("localStorage.getItem('flagsim.settings')")
        scene = json.loads(text).get("scene") if text else None
        return scene and scene["params"]["wind"]["velocity"][0]

    end = time.monotonic() + 10
    while kept_wind() != 0.0 and time.monotonic() < end:
        page.page.wait_for_timeout(250)
    check(kept_wind() == 0.0, "the browser's storage keeps the scene with the wind at 0")
    again = Page(context, url)
    end = time.monotonic() + 10
    while "scene=" not in again.page.evaluate("location.hash") and time.monotonic() < end:
        again.page.wait_for_timeout(250)
    restored = json.loads(urllib.parse.unquote(
        again.page.evaluate("location.hash")).split("scene=", 1)[1].split("&image=")[0])
    check(restored["params"]["wind"]["velocity"][0] == 0.0 and not again.errors(),
          "the page opened again without a link shows the last scene, the wind at 0")
    again.page.close()

    # An image chosen with the file input: its colours on the flag.
    page.page.set_input_files(f"#open-file", str(ROOT / "assets" / "custom-flag.jpg"))
    page.page.wait_for_timeout(4000)
    image = page.shot(f"{backend}-image")
    red = mask(image, is_red, view)
    check(len(red) > 300, f"the chosen image's red is on the flag ({len(red)} points)")
    navy_teal = len(mask(image, is_navy_or_teal, view))
    check(navy_teal < 0.1 * len(flag), f"the built-in flag's navy and teal are gone ({navy_teal})")

    # A file cut short: the viewer's error notice over the view, the flag stays.
    banner_box = (view[0], 0, view[2], 80)
    check(len(mask(image, is_error_notice, banner_box)) < 100, "no error notice before")
    whole = (ROOT / "assets" / "flags" / "tricolour.png").read_bytes()
    page.page.set_input_files("#open-file", files=[{
        "name": "broken.png", "mimeType": "image/png", "buffer": whole[: len(whole) // 2]}])
    page.page.wait_for_timeout(3000)
    image = page.shot(f"{backend}-broken")
    banner = mask(image, is_error_notice, banner_box)
    check(len(banner) > 2000, f"the viewer shows an error notice ({len(banner)} points of it)")
    expected = [e for e in page.errors() if "broken.png" in e]
    unexpected = [e for e in page.errors() if "broken.png" not in e]
    check(expected and not unexpected,
          f"the notice says what is wrong, and the console's only errors are the broken "
          f"file's: {expected + unexpected}")
    check(not page.notice_shown(), "the page's own notice is not shown over the viewer's")
    red = mask(image, is_red, view)
    check(len(red) > 300, "the flag keeps its image")

    # An image dropped on the page: its colours on the flag.
    dropped = list((ROOT / "assets" / "flags" / "tricolour.png").read_bytes())
    transfer = page.page.evaluate_handle("""(bytes) => {
        const data = new DataTransfer();
        data.items.add(new File([new Uint8Array(bytes)], "tricolour.png", {type: "image/png"}));
        return data;
    }""", dropped)
    page.page.dispatch_event("#flagsim", "drop", {"dataTransfer": transfer})
    page.page.wait_for_timeout(4000)
    image = page.shot(f"{backend}-dropped")
    purple = mask(image, is_purple, view)
    # The red below the error notice, which stays until it is closed.
    under_banner = (view[0], banner_box[3], view[2], view[3])
    check(len(purple) > 300 and len(mask(image, is_red, under_banner)) < 100,
          f"the dropped image is on the flag ({len(purple)} points of its purple)")

    # A background image from the Setting panel's open… (the browser's file chooser): the band
    # above the flag, sky before, is the image's dusk.
    page.click_in_turn(WIND_HEADER, SETTING_HEADER)
    with page.page.expect_file_chooser(timeout=30_000) as chooser:
        page.page.mouse.click(*BACKGROUND_OPEN)
    chooser.value.set_files(str(ROOT / "assets" / "backgrounds" / "dusk.png"))

    def sky_share(image):
        return len(mask(image, is_sky, above)) / max(box_area, 1)

    share = eventually(page, f"{backend}-background", sky_share, lambda s: s < 0.1, limit=30)
    check(share < 0.1, f"the background image covers the sky above the flag "
                       f"({share:.0%} of that band is sky)")

    # A recording from the Capture panel: record GIF, and stop a few seconds later.
    page.click_in_turn(SETTING_HEADER, OVERLAYS_HEADER, STATS_HEADER, CAPTURE_HEADER)
    page.page.mouse.click(*RECORD_BUTTON)
    page.page.wait_for_timeout(8000)
    with page.page.expect_download(timeout=60_000) as clip:
        page.page.mouse.click(*RECORD_BUTTON)
    gif = Image.open(io.BytesIO(Path(clip.value.path()).read_bytes()))
    frames = getattr(gif, "n_frames", 1)
    first = gif.convert("RGB")
    gif.seek(frames - 1)
    changed = ImageChops.difference(first, gif.convert("RGB")).convert("L")
    moved = changed.point(lambda v: 255 if v else 0).histogram()[255]
    check(clip.value.suggested_filename.endswith(".gif") and gif.size == first.size
          and gif.size == (VIEWPORT["width"], VIEWPORT["height"]) and frames >= 3
          and moved > 1000,
          f"record GIF downloads a clip ({clip.value.suggested_filename}, {gif.size}, "
          f"{frames} frames; {moved} pixels changed from the first to the last)")

    # A link: the wind the other way and an image by address, the flag on the pole's other
    # side in that image.
    default = json.loads(urllib.parse.unquote(
        page.page.evaluate("location.hash")).split("scene=", 1)[1].split("&image=")[0])
    default["params"]["wind"]["velocity"] = [-6.0, 0.0, 0.0]
    image_address = url.replace("index.html", "test/custom-flag.jpg")
    link = (url + "#scene=" + urllib.parse.quote(json.dumps(default), safe="")
            + "&image=" + urllib.parse.quote(image_address, safe=""))
    page.page.close()
    other = Page(context, link)

    def left_of_pole(image):
        pole = pole_x(image, view)
        red = mask(image, is_red, view)
        flown = mask(image, is_flag, view) | red
        return sum(1 for x, _ in flown if pole and x < pole), len(flown), len(red)

    # The link's image is fetched after the page starts: both wait for the flag's time.
    left, flown, red = eventually(other, f"{backend}-link", left_of_pole,
                                  lambda m: m[0] > 0.6 * m[1] and m[1] > 0 and m[2] > 100)
    check(left > 0.6 * flown,
          f"the link's wind blows the flag to the pole's left ({left} of {flown} points)")
    # The built-in flag has no red at all.
    check(red > 100, f"the link's image is on the flag ({red} points of its red)")
    check(not other.errors(), "the link opened with no error")
    browser.close()
    return page


def main():
    global SHOTS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", default=str(ROOT / "target" / "web"))
    parser.add_argument("--backend", choices=["webgpu", "webgl2", "both"], default="both")
    parser.add_argument("--shots", help="save the screenshots in this folder")
    args = parser.parse_args()
    SHOTS = Path(args.shots) if args.shots else None
    if SHOTS:
        SHOTS.mkdir(parents=True, exist_ok=True)
    folder = Path(args.folder)
    if not (folder / "index.html").exists():
        fail(f"no page in {folder}: run scripts/web build first")
    if not CHROMIUM:
        skip_or_fail("no chromium on the PATH (apt-get install chromium)")
    server = Server(folder)
    backends = ["webgpu", "webgl2"] if args.backend == "both" else [args.backend]
    try:
        with sync_playwright() as playwright:
            for backend in backends:
                run_backend(playwright, backend, server.url)
    finally:
        server.close()
    print(f"web page test: passed on {', '.join(backends)}")


SHOTS = None

if __name__ == "__main__":
    main()
