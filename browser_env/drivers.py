"""Browser drivers: one small interface over Playwright and Selenium.

Both use the Debian ``chromium`` binary (browser downloads are not possible here), inject
scripts before any page script runs (Playwright ``add_init_script``; Selenium through
Chrome DevTools ``Page.addScriptToEvaluateOnNewDocument``), and send real input events
through the browser's input pipeline (Playwright keyboard/mouse; Selenium ActionChains).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
from pathlib import Path
from typing import Any

from browser_env.errors import BrowserError

INSTALL_HINT = "apt-get update && apt-get install -y chromium chromium-driver"
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
DRIVER_CANDIDATES = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
BACKENDS = ("playwright", "selenium")


def _find_executable(what: str, path: str | None, env_var: str, defaults: tuple[str, ...], name: str) -> str:
    candidates = [path] if path else []
    if os.environ.get(env_var):
        candidates.append(os.environ[env_var])
    if not path:
        candidates += list(defaults)
        which = shutil.which(name)
        if which:
            candidates.append(which)
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return c
    raise BrowserError(f"no {what} found (looked at {candidates}); install it with: {INSTALL_HINT}")


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0][:300] if lines else type(exc).__name__


def find_chromium(path: str | None = None) -> str:
    """The Chromium executable: ``path``, $QWOP_CHROMIUM, or the Debian package's."""
    return _find_executable("Chromium", path, "QWOP_CHROMIUM", CHROMIUM_CANDIDATES, "chromium")


def find_chromedriver(path: str | None = None) -> str:
    """The chromedriver executable: ``path``, $QWOP_CHROMEDRIVER, or the Debian package's."""
    return _find_executable("chromedriver", path, "QWOP_CHROMEDRIVER", DRIVER_CANDIDATES, "chromedriver")


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-dev-shm-usage",
    # WebGL on SwiftShader in the GPU process: the page's (software) rendering then runs beside
    # its main thread instead of on it, so calls and key events are not queued behind frames.
    # --disable-gpu would put it on the main thread: about 25 ms per call instead of 3.
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--autoplay-policy=no-user-gesture-required",
    # Keep the page's clock running at full speed when nobody looks at it.
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
]


class Driver:
    """Common interface; see PlaywrightDriver and SeleniumDriver."""

    name = "base"

    def add_init_script(self, source: str) -> None:
        raise NotImplementedError

    def goto(self, url: str, timeout_s: float) -> None:
        raise NotImplementedError

    def evaluate(self, function: str, arg: Any = None) -> Any:
        """Call a JS function expression, e.g. ``"(a) => a + 1"``, awaiting a returned promise."""
        raise NotImplementedError

    def key_down(self, key: str) -> None:
        raise NotImplementedError

    def key_up(self, key: str) -> None:
        raise NotImplementedError

    def keys(self, up: list[str], down: list[str]) -> None:
        """Release ``up``, then press ``down``: one decision's key events, sent as close together
        as the driver allows (each event waits for the page's acknowledgement when sent alone)."""
        for k in up:
            self.key_up(k)
        for k in down:
            self.key_down(k)

    def aim(self, selector: str) -> None:
        """Get ready to click ``selector``'s element: after this, :meth:`click` on it sends the
        button's events alone, without first finding the element (a driver may do nothing)."""

    def click(self, selector: str) -> None:
        raise NotImplementedError

    def screenshot_png(self, selector: str | None = None) -> bytes:
        raise NotImplementedError

    def console(self) -> list[str]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


_playwright: Any = None
_playwright_users = 0


def _acquire_playwright() -> Any:
    # Playwright's sync API allows one instance per thread: browsers share it.
    global _playwright, _playwright_users
    if _playwright is None:
        from playwright.sync_api import sync_playwright

        _playwright = sync_playwright().start()
    _playwright_users += 1
    return _playwright


def _release_playwright() -> None:
    global _playwright, _playwright_users
    _playwright_users -= 1
    if _playwright_users <= 0 and _playwright is not None:
        _playwright.stop()
        _playwright = None
        _playwright_users = 0


class PlaywrightDriver(Driver):
    name = "playwright"

    def __init__(self, headless: bool = True, executable_path: str | None = None) -> None:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError as exc:
            raise BrowserError("the playwright package is missing: pip install playwright") from exc
        exe = find_chromium(executable_path)
        self._pw = _acquire_playwright()
        try:
            self._browser = self._pw.chromium.launch(executable_path=exe, headless=headless, args=CHROMIUM_ARGS)
        except Exception as exc:
            _release_playwright()
            raise BrowserError(
                f"Chromium ({exe}) did not start: {_first_line(exc)}. Is it installed? {INSTALL_HINT}"
            ) from exc
        self._context = self._browser.new_context(viewport={"width": 800, "height": 500})
        self._page = self._context.new_page()
        self._aimed: str | None = None  # the selector the mouse is over (aim)
        self._console: list[str] = []
        self._page.on("console", lambda m: self._console.append(f"{m.type}: {m.text}"))
        self._page.on("pageerror", lambda e: self._console.append(f"pageerror: {e}"))

    def add_init_script(self, source: str) -> None:
        self._context.add_init_script(script=source)

    def goto(self, url: str, timeout_s: float) -> None:
        self._console.clear()
        self._aimed = None
        self._page.goto(url, timeout=timeout_s * 1000, wait_until="load")

    def evaluate(self, function: str, arg: Any = None) -> Any:
        return self._page.evaluate(function, arg)

    def key_down(self, key: str) -> None:
        self._page.keyboard.down(key)

    def key_up(self, key: str) -> None:
        self._page.keyboard.up(key)

    def keys(self, up: list[str], down: list[str]) -> None:
        # Playwright's sync API waits for each event's acknowledgement before sending the next
        # (about 3 ms each, more while the page draws). The same calls of its async layer,
        # gathered, go out back to back, in order, and all reach the page before its next
        # update; where that layer is not as expected, one event at a time.
        kb = getattr(self._page.keyboard, "_impl_obj", None)
        run = getattr(self._page, "_sync", None)
        if kb is None or run is None or len(up) + len(down) < 2:
            return super().keys(up, down)

        async def send() -> None:
            await asyncio.gather(*[kb.up(k) for k in up], *[kb.down(k) for k in down])

        run(send())

    def aim(self, selector: str) -> None:
        # page.click() first waits until the element is visible and has kept its place for two
        # frames (tens of ms on a loaded machine); so that a click lands in the update it is sent
        # before, the mouse is moved over the element's middle beforehand, as a person's hand is.
        box = self._page.locator(selector).bounding_box()
        if box is None:
            raise BrowserError(f"the page has no visible {selector} to click")
        self._page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        self._aimed = selector

    def click(self, selector: str) -> None:
        if self._aimed != selector:
            self._page.click(selector)
            return
        mouse = getattr(self._page.mouse, "_impl_obj", None)
        run = getattr(self._page, "_sync", None)
        if mouse is None or run is None:  # one event at a time
            self._page.mouse.down()
            self._page.mouse.up()
            return

        async def send() -> None:  # back to back, as keys()
            await asyncio.gather(mouse.down(button="left", click_count=1), mouse.up(button="left", click_count=1))

        run(send())

    def screenshot_png(self, selector: str | None = None) -> bytes:
        if selector:
            return self._page.locator(selector).screenshot()
        return self._page.screenshot()

    def console(self) -> list[str]:
        return list(self._console)

    def close(self) -> None:
        try:
            self._browser.close()
        finally:
            _release_playwright()


class SeleniumDriver(Driver):
    name = "selenium"

    def __init__(
        self, headless: bool = True, executable_path: str | None = None, driver_path: str | None = None
    ) -> None:
        try:
            from selenium import webdriver
            from selenium.webdriver.chrome.service import Service
        except ImportError as exc:
            raise BrowserError("the selenium package is missing: pip install selenium") from exc
        exe = find_chromium(executable_path)
        drv = find_chromedriver(driver_path)
        options = webdriver.ChromeOptions()
        options.binary_location = exe
        for a in CHROMIUM_ARGS:
            options.add_argument(a)
        if headless:
            options.add_argument("--headless=new")
        options.add_argument("--window-size=800,600")
        options.add_argument("--remote-debugging-pipe")  # chromedriver drives Chromium over a pipe: no DevTools port
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        # chromedriver serves its commands under a random path, so that another local process
        # that finds its port cannot start a session of its own (docs/reliability.md).
        base = f"/qwop-{secrets.token_hex(16)}"

        class _GuardedService(Service):  # type: ignore[misc,valid-type]
            @property
            def service_url(self) -> str:
                return super().service_url + base

            def is_connectable(self) -> bool:  # Selenium asks /status at the root, which is now closed
                import urllib.request

                try:
                    with urllib.request.urlopen(f"{self.service_url}/status", timeout=1) as r:
                        return r.status == 200
                except OSError:
                    return False

        try:
            service = _GuardedService(executable_path=drv, service_args=[f"--url-base={base}"])
            self._driver = webdriver.Chrome(service=service, options=options)
        except Exception as exc:
            raise BrowserError(
                f"Chromium ({exe}) with chromedriver ({drv}) did not start: {_first_line(exc)}. {INSTALL_HINT}"
            ) from exc
        self._console: list[str] = []

    def add_init_script(self, source: str) -> None:
        self._driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})

    def goto(self, url: str, timeout_s: float) -> None:
        self._console.clear()
        self._driver.set_page_load_timeout(timeout_s)
        self._driver.get(url)

    def evaluate(self, function: str, arg: Any = None) -> Any:
        return self._driver.execute_script(f"return ({function})(arguments[0]);", arg)

    def _actions(self) -> Any:
        from selenium.webdriver.common.action_chains import ActionChains

        return ActionChains(self._driver, duration=0)

    def key_down(self, key: str) -> None:
        self._actions().key_down(key).perform()

    def key_up(self, key: str) -> None:
        self._actions().key_up(key).perform()

    def keys(self, up: list[str], down: list[str]) -> None:
        chain = self._actions()  # one request: the driver sends the events in a row
        for k in up:
            chain = chain.key_up(k)
        for k in down:
            chain = chain.key_down(k)
        chain.perform()

    def click(self, selector: str) -> None:
        from selenium.webdriver.common.by import By

        self._actions().click(self._driver.find_element(By.CSS_SELECTOR, selector)).perform()

    def screenshot_png(self, selector: str | None = None) -> bytes:
        if selector:
            from selenium.webdriver.common.by import By

            return self._driver.find_element(By.CSS_SELECTOR, selector).screenshot_as_png
        return self._driver.get_screenshot_as_png()

    def console(self) -> list[str]:
        try:
            for entry in self._driver.get_log("browser"):
                self._console.append(f"{entry.get('level', '').lower()}: {entry.get('message', '')}")
        except Exception:
            pass
        return list(self._console)

    def close(self) -> None:
        self._driver.quit()


def make_driver(backend: str, headless: bool = True, executable_path: str | None = None) -> Driver:
    if backend == "playwright":
        return PlaywrightDriver(headless=headless, executable_path=executable_path)
    if backend == "selenium":
        return SeleniumDriver(headless=headless, executable_path=executable_path)
    raise ValueError(f"unknown backend {backend!r}; choose one of {BACKENDS}")
