"""What other local processes can reach while a browser runs: Playwright's Chromium listens on
no port (a pipe), Selenium's Chromium neither (--remote-debugging-pipe), and chromedriver,
which must listen, refuses commands outside its random path (no session for a stranger)."""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request

import psutil
import pytest

from browser_env.drivers import make_driver

pytestmark = pytest.mark.skipif(
    shutil.which("chromium") is None, reason="needs Debian chromium (bash scripts/test.sh installs it)"
)


def _listening() -> list[tuple[str, int]]:
    """(process name, port) of every listening socket of this process's children."""
    kids = {p.pid: p.name() for p in psutil.Process().children(recursive=True)}
    return [(kids[c.pid], c.laddr.port) for c in psutil.net_connections(kind="inet")
            if c.status == "LISTEN" and c.pid in kids]


def test_playwright_opens_no_port() -> None:
    d = make_driver("playwright")
    try:
        d.goto("about:blank", 10)
        assert _listening() == []
    finally:
        d.close()


def test_selenium_chromium_has_no_devtools_port_and_chromedriver_refuses_strangers() -> None:
    d = make_driver("selenium")
    try:
        d.goto("about:blank", 10)
        ports = _listening()
        assert ports and {name for name, _ in ports} == {"chromedriver"}, ports
        port = ports[0][1]
        body = json.dumps({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {"binary": "/bin/true"}}}})
        for path, data in (("/session", body.encode()), ("/status", None), ("/sessions", None)):
            req = urllib.request.Request(
                f"http://127.0.0.1:{port}{path}", data=data, headers={"Content-Type": "application/json"}
            )
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(req, timeout=10)
            assert refused.value.code in (400, 404), (path, refused.value.code)
        assert d.evaluate("() => 6 * 7") == 42  # the harness's own session still works
    finally:
        d.close()
    assert _listening() == []
