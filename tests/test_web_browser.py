"""The stepping page in a real headless browser: Playwright drives the
system's Chromium (Debian's ``chromium`` package, which ``.ci/run``
installs) against a server on 127.0.0.1.  A screenshot of each step lands
in the test's temporary directory.

Without Playwright, Chromium or Graphviz the tests skip, saying which is
missing; the server's API is tested without a browser in
``tests/test_web_api.py``.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from cli.net_loading import load_net
from cpn import Net
from cpn.stepper import Stepper
from cpn.times import time_text
from cpn.trace import replay
from cpn.web import WebSession
from tests.web_nets import BREAKPOINTS, build_net, long_names_net

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


#: The widget's model as anywidget gives it to each view: what one sends goes
#: to the widget's Python side, and every answer reaches every view.  A test
#: makes the kernel gone (sending throws), silent (it drops what it is sent),
#: or slow (its answers come ``kernelDelay`` ms late); ``closeComm()`` closes
#: the comm as ipywidgets does when the kernel goes.
SIMULATED_MODEL = """
    const handlers = {};
    const model = {
      send: (message) => {
        if (window.kernelGone) throw new Error("Cannot send");  // as a closed comm does
        if (window.kernelSilent) return;
        const delay = window.kernelDelay || 0;
        const later = (reply) => setTimeout(() => window.deliver(reply), delay);
        return window.throughComm(message).then((replies) => replies.forEach(later));
      },
      on: (event, handler) => (handlers[event] ||= []).push(handler),
      get: (name) => window.modelTraits[name],
    };
    window.deliver = (reply) => handlers["msg:custom"].forEach((handler) => handler(reply));
    window.closeComm = () => ["comm:close", "destroy"].forEach(
      (event) => handlers[event].forEach((handler) => handler()));"""


def widget_page(browser, shots: Path, widget, views: int = 1) -> Page:
    """The widget's own script in Chromium, mounted in ``views`` cells
    that share one simulated model."""
    def through_comm(request):
        replies = []
        widget.send = replies.append
        widget._answer(widget, request, [])
        return replies

    def load(page):
        page.expose_function("throughComm", through_comm)
        page.set_content(f"<style>{widget._css}</style>" + "<div class='cell'></div>" * views)
        page.evaluate("(traits) => { window.modelTraits = traits; }",
                      {"patience": widget.patience})
        page.add_script_tag(type="module", content=widget._esm + SIMULATED_MODEL + """
            for (const cell of document.querySelectorAll(".cell")) {
              mount(cell, commTransport(model));
            }""")
        page.wait_for_function(f"document.querySelectorAll('[data-ready]').length == {views}")

    return Page(browser, shots, load)


def stepper_widget(session: WebSession):
    return pytest.importorskip("cpn.web.widget", reason="anywidget is not installed") \
        .StepperWidget(session)


def test_the_notebook_widget_steps_through_its_comm(browser, tmp_path):
    widget = stepper_widget(WebSession(build_net(), named=BREAKPOINTS))
    page = widget_page(browser, tmp_path, widget)
    sim = widget.session.simulator
    assert page.counts() == sim.marking.counts() and page.text(".net") == "shop"
    page.click(".binding-rows tr[data-number='1'] button.fire")
    assert sim.steps == 1 and page.counts() == sim.marking.counts()
    page.page.fill(".run-until", "4")
    page.click(".run-until-go")
    assert page.text(".clock") == f"time 4   step {sim.steps}"
    page.click('.drawing g.node[id="module:Desk"]')
    assert page.text(".crumbs") == "shop › Desk"
    page.click(".bp-named-form button")  # the net file's "a big order is done"
    page.click(".run-breakpoint")
    assert "breakpoint hit: place Done when a big order is done" in page.log()
    assert page.counts()["Done"] == 2
    page.shot("widget")
    assert page.errors == []


def test_two_views_of_one_widget_take_only_their_own_answers(browser, tmp_path):
    # Both views numbered their requests 1, 2, ...: the second view took the
    # first's answer to Fire as its token table, "Tokens of Inbox (undefined)".
    widget = stepper_widget(WebSession(build_net()))
    page = widget_page(browser, tmp_path, widget, views=2)
    page.page.evaluate("""() => {
        const [first, second] = document.querySelectorAll(".cpn-stepper");
        delete first.dataset.ready;
        first.querySelector(".binding-rows button.fire").click();
        second.querySelector(".place-rows tr[data-place='Inbox']").click(); }""")
    page.page.wait_for_function("document.querySelectorAll('.tokens:not([hidden])').length")
    page.page.wait_for_selector("div.cell:nth-of-type(1)[data-ready]")
    # Before or after the first view's firing took one order out of Inbox:
    assert page.page.text_content("div.cell:nth-of-type(2) .tokens-place") in {
        "Inbox (3)", "Inbox (2)"}
    assert page.page.text_content("div.cell:nth-of-type(1) .clock") == "time 0   step 1"
    assert page.errors == []


def test_every_view_draws_a_change_made_elsewhere(browser, tmp_path):
    # A cell that stepped widget.session left the page at the old marking;
    # a click then jumped several steps while the log said it fired one.
    widget = stepper_widget(WebSession(build_net()))
    page = widget_page(browser, tmp_path, widget, views=2)
    clocks = "[...document.querySelectorAll('.cpn-stepper .clock')].map((c) => c.textContent)"
    told = []
    widget.send = told.append
    widget.tell()
    assert told == []  # nothing changed: nothing said
    widget.session.step()
    widget.session.simulator.step()  # the simulator itself, from a cell
    widget.tell()
    assert told == [{"changed": {"version": 1, "step": 2, "time": 0.0, "running": False}}]
    page.page.evaluate("(message) => window.deliver(message)", told[0])
    page.page.wait_for_function(f"{clocks}.every((c) => c.endsWith('step 2'))")
    page.page.click("div.cell:nth-of-type(1) .step")  # the other view follows a view's click
    page.page.wait_for_function(f"{clocks}.every((c) => c.endsWith('step 3'))")
    # each view logs every line, not the one that read the state first
    page.page.wait_for_function("[...document.querySelectorAll('.cpn-stepper')].every("
                                "(v) => v.querySelector('.log').textContent.includes('fired'))")
    assert page.errors == []


def slow_net(ticks: int = 20) -> Net:
    """A net whose each firing takes 50 ms: a run of it takes a while."""
    net = Net("slow", env={"slow": lambda x: (time.sleep(0.05), x + 1)[1]})
    net.place("P", int, initial=[0])
    net.transition("Tick", guard=f"x < {ticks}")
    net.arc("P", "Tick", "x")
    net.arc("Tick", "P", "slow(x)")
    return net


def test_a_run_a_cell_started_is_followed_though_it_had_not_fired(browser, tmp_path):
    # As the cell ended nothing had changed yet, so no view was told, and
    # none drew the run's end until a click jumped there.
    widget = stepper_widget(WebSession(slow_net()))
    page = widget_page(browser, tmp_path, widget)
    told = []
    widget.send = told.append
    widget.session.run(steps=10)
    widget.tell()  # as the cell ends
    assert told[0]["changed"]["running"]
    page.page.evaluate("(message) => window.deliver(message)", told[0])
    page.page.wait_for_function("document.querySelector('.clock').textContent"
                                ".endsWith('step 10') && document.querySelector('[data-ready]')")
    assert page.errors == []


def test_a_widget_whose_kernel_restarted_says_so(browser, tmp_path):
    # A click sent nothing and said nothing: "Cannot send" was a page error.
    page = widget_page(browser, tmp_path, stepper_widget(WebSession(build_net())))
    page.page.evaluate("window.kernelGone = true")
    page.page.click(".step")
    page.page.wait_for_selector(".log li.error")
    assert page.log() == ["the kernel does not answer (restarted?): run the widget's cell "
                          "again (Cannot send)"]
    assert page.text(".clock") == "time 0   step 0" and page.errors == []


#: The size on the screen, in CSS px, of each place's name in the drawing.
NAME_SIZES = """() => [...document.querySelectorAll('.drawing g.node[id^="place:"]')].map(
  (node) => node.querySelector("text")).map(
  (name) => Number(name.getAttribute("font-size")) * name.getScreenCTM().a)"""


def test_the_drawing_is_legible_at_a_notebooks_width_and_zooms(browser, tmp_path):
    # PuPPET's drawing, shrunk to the width of a 700 px cell, showed its place
    # names at 2 px; the side panel took half of the width.
    widget = stepper_widget(WebSession(load_net("puppet")))
    page = widget_page(browser, tmp_path, widget)
    page.page.set_viewport_size({"width": 700, "height": 800})
    page.page.wait_for_selector(".cpn-stepper.narrow")
    sizes = page.page.evaluate(NAME_SIZES)
    assert len(sizes) >= 5 and min(sizes) == pytest.approx(11, rel=1e-3)  # >= 9: legible
    pane = "(d) => [d.scrollWidth, d.clientWidth, d.getBoundingClientRect().bottom]"
    wide, seen, bottom = page.page.eval_on_selector(".drawing", pane)
    assert wide > seen  # scrolled, not shrunk
    assert page.page.eval_on_selector("aside", "(a) => a.getBoundingClientRect().top") >= bottom
    assert page.text(".zoom-level") == "75%"
    page.shot("notebook-width")

    def name_size() -> float:
        return min(page.page.evaluate(NAME_SIZES))

    page.page.click(".zoom-in")
    assert name_size() == pytest.approx(11 * 1.25, rel=1e-3) and page.text(".zoom-level") == "94%"
    page.click(".step")  # drawn again, at the size chosen
    assert name_size() == pytest.approx(11 * 1.25, rel=1e-3)
    page.page.click(".zoom-out")
    page.page.click(".zoom-out")
    assert name_size() == pytest.approx(11 / 1.25, rel=1e-3)
    page.page.hover(".drawing svg")
    page.page.keyboard.down("Control")
    page.page.mouse.wheel(0, -100)  # ctrl + wheel up: larger
    page.page.keyboard.up("Control")
    page.page.wait_for_function(f"Math.min(...({NAME_SIZES})()) > 10")  # 8.8 px before
    page.page.click(".zoom-fit")  # the whole width, as the user asked
    wide, seen, _ = page.page.eval_on_selector(".drawing", pane)
    assert wide <= seen and name_size() < 9
    page.shot("fitted")
    assert page.errors == []


SILENT = ("the kernel has not answered for 0.5 s: it is busy with another cell (the page "
          "goes on when it answers) or it stopped; if it stopped or restarted, run the "
          "widget's cell again")


def test_a_widget_whose_kernel_never_answers_says_so_and_stays_usable(browser, tmp_path):
    # A request the kernel never answered (it died, or restarted and dropped
    # it) left the page waiting for ever, saying nothing; so did a run.
    widget = stepper_widget(WebSession(slow_net()))
    widget.patience = 0.5
    page = widget_page(browser, tmp_path, widget)
    page.page.evaluate("window.kernelSilent = true")
    page.page.click(".step")
    page.page.wait_for_selector(".log li.error", timeout=5_000)
    assert page.log() == [SILENT] and widget.session.simulator.steps == 0
    page.page.evaluate("window.kernelSilent = false")  # the cell run again: a kernel back
    page.click(".step")
    assert page.text(".clock") == "time 0   step 1"

    page.page.click(".run-steps-go")  # 10 steps, 0.5 s: the kernel goes silent during it
    page.page.wait_for_selector(".stop:not([disabled])")
    page.page.evaluate("window.kernelSilent = true")
    page.page.wait_for_function("document.querySelectorAll('.log li.error').length == 2",
                                timeout=5_000)
    assert page.log()[-1] == SILENT
    assert page.page.is_hidden(".busy") and page.page.is_enabled(".step")
    assert page.errors == []


def test_a_slow_kernel_is_waited_for_and_its_late_answer_drawn(browser, tmp_path):
    # A run longer than the patience is not given up on: its progress, polled,
    # says the kernel is alive.
    widget = stepper_widget(WebSession(slow_net(40)))
    widget.patience = 0.5
    page = widget_page(browser, tmp_path, widget)
    page.page.fill(".run-steps", "30")
    page.act(lambda: page.page.click(".run-steps-go"))  # 1.5 s
    assert page.text(".clock") == "time 0   step 30"
    assert not any("error" in line or "not answered" in line for line in page.log())
    # A kernel busy with another cell answers late: the page said so, then draws it.
    page.page.evaluate("window.kernelDelay = 1500")
    page.act(lambda: (page.page.click(".step"), page.page.evaluate("window.kernelDelay = 0")))
    log = page.log()
    assert log[log.index(SILENT) + 1:][:2] == ["the kernel answers again", "fired 1 step; time 0"]
    assert page.text(".clock") == "time 0   step 31" and page.errors == []


def test_a_widget_whose_comm_closed_says_so_at_once(browser, tmp_path):
    # Its waiting request waited for ever, though ipywidgets had said the comm closed.
    page = widget_page(browser, tmp_path, stepper_widget(WebSession(build_net())))
    page.page.evaluate("window.kernelSilent = true")
    page.page.click(".step")
    page.page.evaluate("window.closeComm()")
    page.page.wait_for_selector(".log li.error", timeout=2_000)  # not the 60 s of patience
    assert page.log() == ["the kernel closed the widget's connection (restarted or shut "
                          "down): run the widget's cell again"]
    assert page.errors == []


#: The contrast of an element's text against the first background behind it.
CONTRAST = """(element) => {
  const rgb = (text) => text.match(/[\\d.]+/g).map(Number);
  const luminance = ([r, g, b]) => [r, g, b].map((c) => c / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
    .reduce((sum, c, k) => sum + c * [0.2126, 0.7152, 0.0722][k], 0);
  let behind = element;
  while (rgb(getComputedStyle(behind).backgroundColor)[3] === 0) behind = behind.parentElement;
  const [a, b] = [getComputedStyle(element).color, getComputedStyle(behind).backgroundColor]
    .map((colour) => luminance(rgb(colour)));
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


def test_the_widget_is_legible_in_a_dark_notebook(browser, tmp_path):
    # Its text was #222 on the dark theme's near-black cell: headings,
    # place list and log could not be read.
    page = widget_page(browser, tmp_path, stepper_widget(WebSession(build_net())))
    page.page.evaluate("document.body.style.background = '#111'")
    for selector in (".bindings h2", ".place-rows td", ".bp-transition-form label"):
        assert page.page.eval_on_selector(selector, CONTRAST) >= 4.5, selector
    page.shot("dark")


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
