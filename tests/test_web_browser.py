"""The stepping page in a real headless browser: Playwright drives the
system's Chromium (Debian's ``chromium`` package, which ``.ci/run``
installs) against a server on 127.0.0.1.  A screenshot of each step lands
in the test's temporary directory.

Without Playwright, Chromium or Graphviz the tests skip, saying which is
missing; the server's API is tested without a browser in
``tests/test_web_api.py``, the notebook widget's page in
``tests/test_web_widget.py``.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest

from cli.net_loading import load_net
from cpn.stepper import Stepper
from cpn.times import time_text
from cpn.trace import replay
from cpn.web import WebSession
from tests.web_nets import build_net, long_names_net

pytest.importorskip("starlette", reason="the [web] extra is not installed")
playwright = pytest.importorskip("playwright.sync_api",
                                 reason="Playwright is not installed (pip install playwright)")

from cpn.web.server import running  # noqa: E402


def chromium() -> str | None:
    """The system's Chromium: $CPN_CHROMIUM, else the first on the PATH."""
    return os.environ.get("CPN_CHROMIUM") or next(
        filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))),
        None)


pytestmark = [
    pytest.mark.skipif(chromium() is None,
                       reason="no Chromium on this machine (apt-get install chromium; or "
                              "set CPN_CHROMIUM to a Chromium or Chrome executable)"),
    pytest.mark.skipif(shutil.which("dot") is None,
                       reason="Graphviz's dot program is not installed: the page has no "
                              "drawing to click"),
]


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as driver:
        try:
            launched = driver.chromium.launch(executable_path=chromium(),
                                              args=["--no-sandbox"])
        except playwright.Error as error:
            pytest.skip(f"Chromium at {chromium()} did not start: "
                        f"{str(error).splitlines()[0]}")
        yield launched
        launched.close()


class Page:
    """The stepping page, with what a test does on it: act and wait for
    the page to show the result, read what it shows, take a screenshot."""

    def __init__(self, browser, shots: Path, load: Callable[[Any], None]):
        """A new page that ``load`` fills (going to the server's address,
        say), ready once the stepper on it has drawn its first state."""
        self.page = browser.new_page(viewport={"width": 1400, "height": 900},
                                     accept_downloads=True)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.shots, self.taken = shots, 0
        load(self.page)
        self.page.wait_for_selector(".cpn-stepper[data-ready]")

    def act(self, do) -> None:
        """Do something that changes the state, then wait until the page
        has drawn the new one."""
        self.page.evaluate("delete document.querySelector('.cpn-stepper').dataset.ready")
        do()
        self.page.wait_for_selector(".cpn-stepper[data-ready]", timeout=10_000)

    def click(self, selector: str) -> None:
        self.act(lambda: self.page.click(selector))

    def counts(self) -> dict[str, int]:
        """The token count of each place, as the page's place list shows it."""
        return dict(self.page.eval_on_selector_all(
            ".place-rows tr", "rows => rows.map(r => [r.dataset.place, "
                              "Number(r.children[1].textContent)])"))

    def text(self, selector: str) -> str:
        return self.page.text_content(selector)

    def log(self) -> list[str]:
        return self.page.eval_on_selector_all(".log li", "items => items.map(i => i.textContent)")

    def shot(self, name: str) -> Path:
        self.taken += 1
        path = self.shots / f"{self.taken:02d}-{name}.png"
        self.page.screenshot(path=path)
        return path


def test_stepping_puppet_in_the_browser(browser, tmp_path):
    session = WebSession(load_net("puppet"))
    sim = lambda: session.simulator  # noqa: E731 - loading a trace makes a new one
    with running(session) as url:
        page = Page(browser, tmp_path, lambda page: page.goto(url))
        assert page.text(".clock") == "time 0   step 0"
        assert page.counts() == sim().marking.counts()
        assert page.page.query_selector('.drawing g.node[id="module:Scheduler"]')
        page.shot("loaded")

        # Fire the one enabled binding: the page shows the stepper API's marking.
        page.click(".binding-rows tr[data-number='1'] button.fire")
        by_hand = Stepper(load_net("puppet"), show=lambda item: None)
        by_hand.execute("1")
        assert page.counts() == by_hand.simulator.marking.counts() == sim().marking.counts()
        assert page.text(".clock") == "time 0   step 1"
        assert page.log()[-1].startswith("fired Scheduler/Submit<")
        page.shot("fired")

        page.click(".undo")
        assert page.text(".clock") == "time 0   step 0"
        assert page.counts() == load_net_counts()
        page.shot("undone")

        page.page.fill(".run-until", "150")
        page.click(".run-until-go")
        assert page.text(".clock") == "time 150   step 10"
        assert page.counts() == sim().marking.counts()
        page.shot("ran-to-150")

        page.page.select_option(".bp-transition", "Finish")
        page.click(".bp-transition-form button")
        assert page.text(".bp-list li").startswith("transition Finish")
        page.click(".run-breakpoint")
        assert "breakpoint hit: transition Finish" in page.log()
        assert session.stepper.trace[-1].transition == "Finish"
        assert page.text(".clock") == f"time {sim().now:g}   step {sim().steps}"
        page.shot("breakpoint-hit")

        # Save the trace; cpn replay's function reaches the same marking.
        with page.page.expect_download() as saving:
            page.page.click(".save-trace")
        saved = tmp_path / "puppet.trace.jsonl"
        saving.value.save_as(saved)
        reached = sim().marking.freeze()
        assert replay(load_net("puppet"), saved).marking.freeze() == reached

        # Load it back after going back to the start.
        page.click(".undo")
        page.click(".undo")
        assert page.text(".clock") == "time 0   step 0"
        page.act(lambda: page.page.set_input_files(".load-trace", saved))
        assert sim().marking.freeze() == reached
        assert page.counts() == sim().marking.counts()
        assert page.log()[-1].startswith("replayed ")
        assert page.text(".bp-list li").startswith("transition Finish")

        # The hierarchy: open the scheduler's module, look at a place's tokens.
        page.click('.drawing g.node[id="module:Scheduler"]')
        assert page.text(".crumbs") == "PuPPET › Scheduler"
        assert page.page.query_selector('.drawing g.node[id="transition:Scheduler/Submit"]')
        page.page.click(".place-rows tr[data-place='Queuing']")
        page.page.wait_for_selector(".tokens-place:has-text('Queuing (1)')")
        assert page.text(".tokens-note") == "one token: a tuple of 1 Job"
        headers = page.page.eval_on_selector_all(".tokens-table th",
                                                 "cells => cells.map(c => c.textContent)")
        assert headers[:4] == ["id", "st", "rt", "js"]
        # Each on one line: the panel's wrapping broke them, "i d", "execut able".
        lines = page.page.eval_on_selector_all(".tokens-table th", """cells => cells.map(c => {
            const range = document.createRange();
            range.selectNodeContents(c);
            return range.getClientRects().length; })""")
        assert lines == [1] * len(headers)
        page.shot("module-and-tokens")
        assert page.errors == []


def load_net_counts() -> dict[str, int]:
    return Stepper(load_net("puppet"), show=lambda item: None).simulator.marking.counts()


def test_a_long_run_shows_progress_and_stops_in_the_browser(browser, tmp_path):
    from tests.test_stepper import buffer_net

    endless = buffer_net()
    endless.arc("Consume", "Ready", "y")  # items come back: it never ends
    session = WebSession(endless, run_limit=10**9)
    with running(session) as url:
        page = Page(browser, tmp_path, lambda page: page.goto(url))
        page.page.click(".run-breakpoint")
        page.page.wait_for_selector(".stop:not([disabled])")
        page.page.wait_for_function(
            "Number(document.querySelector('.progress-text').textContent.split(' ')[0]) > 0")
        assert re.fullmatch(r"\d+ fired, time [\d.e+]+", page.text(".progress-text"))
        # a breakpoint's Add was clickable, and refused: "a run is in progress"
        assert page.page.is_disabled(".bp-transition-form button")
        assert page.page.is_disabled(".load-trace") and page.page.is_disabled(".save-trace")
        page.shot("running")
        page.act(lambda: page.page.click(".stop"))
        assert "stopped on request" in page.log()[-1]
        assert page.page.is_disabled(".stop") and page.page.is_hidden(".progress-row")
        assert page.page.is_enabled(".bp-transition-form button")
        sim = session.simulator
        assert page.text(".clock") == f"time {time_text(sim.now)}   step {sim.steps}"
        page.shot("stopped")
        assert page.errors == []


def test_a_page_whose_server_stopped_says_so(browser, tmp_path):
    # A click after Ctrl-C showed nothing at all.
    with running(build_net()) as url:
        page = Page(browser, tmp_path, lambda page: page.goto(url))
    page.page.click(".step")
    page.page.wait_for_function("[...document.querySelectorAll('.log li')]"
                                ".some(item => item.textContent.includes('does not answer'))")
    assert page.log()[-1].startswith("the server does not answer (stopped?): ")
    assert len(page.log()) == 1 and page.errors == []


def test_a_long_transition_name_is_shortened_in_the_middle_within_the_panel(browser, tmp_path):
    # A 92-character path ran off the 30em side panel, unwrapped, squeezing
    # the values to a letter a line (rows ~300 px tall); so did the
    # breakpoint form's list of transitions.
    path = ("Worker_substitution_with_a_long_name/"
            "Handles_each_order_with_a_name_going_on_and_ever_really")
    with running(long_names_net()) as url:
        page = Page(browser, tmp_path, lambda page: page.goto(url))
        page.page.set_viewport_size({"width": 1200, "height": 800})
        page.page.wait_for_function("document.querySelector('.name-line').textContent"
                                    ".includes('…')")
        page.shot("long-names")
        panel = page.page.eval_on_selector("aside", "a => [a.scrollWidth, a.clientWidth, "
                                                    "a.getBoundingClientRect().right]")
        assert len(path) == 92 and panel[0] <= panel[1]
        rows = page.page.eval_on_selector_all(".binding-rows tr", """rows => rows.map(row => {
            const [name, values] = row.querySelectorAll(".name-line, .values");
            return [name.textContent, name.title, name.scrollWidth <= name.clientWidth,
                    values.textContent, row.getBoundingClientRect().height,
                    values.getBoundingClientRect().top >= name.getBoundingClientRect().bottom,
                    row.getBoundingClientRect().right];
        })""")
        assert len(rows) == 5
        for number, (text, title, fits, values, height, under, right) in enumerate(rows):
            start, end = text.split("…")
            assert path.startswith(start) and path.endswith(end) and len(text) < len(path)
            assert abs(len(start) - len(end)) <= 1 and len(text) > 30
            assert (title, fits, values) == (path, True, f"order=Order(id={number}, size=3)")
            assert height < 60 and under and right <= panel[2]
        listed = page.page.eval_on_selector(".bp-transition", "list => [list.value, "
                                            "list.options[0].title, list.options[0].text, "
                                            "list.getBoundingClientRect().right]")
        assert listed[:2] == [path, path] and "…" in listed[2] and listed[3] <= panel[2]
        page.click(".bp-transition-form button")
        assert page.text(".bp-list li").startswith(f"transition {path}")
        assert page.errors == []


def test_an_answer_that_is_not_json_is_shown_by_its_status_and_text(browser, tmp_path):
    # It was "the server does not answer (stopped?)", though it had.
    with running(build_net()) as url:
        page = Page(browser, tmp_path, lambda page: page.goto(url))
        page.page.route("**/api/step", lambda route: route.fulfill(
            status=502, content_type="text/html",
            body="<html><body><h1>Bad Gateway</h1>\n<p>no upstream</p></body></html>"))
        page.click(".step")
        assert page.log() == ["the server answered 502 Bad Gateway: Bad Gateway no upstream"]
        assert page.text(".clock") == "time 0   step 0" and page.errors == []


def test_an_empty_number_field_is_asked_for_not_sent_as_0(browser, tmp_path):
    # Number("") is 0: "? n takes a positive number of steps, e.g. n 10"
    with running(build_net()) as url:
        page = Page(browser, tmp_path, lambda page: page.goto(url))
        page.page.fill(".run-steps", "")
        page.page.click(".run-steps-go")
        page.page.fill(".run-until", "")
        page.page.click(".run-until-go")
        assert page.log() == ["give a number of steps to run", "give a time to run to"]
        assert page.text(".clock") == "time 0   step 0" and page.errors == []
