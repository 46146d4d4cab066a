"""The notebook widget's page in headless Chromium (as
``tests/test_web_browser.py`` drives the served page), without Jupyter:
its own script, mounted in a page with a simulated anywidget model whose
messages reach the widget's Python side, and whose kernel a test can make
gone, silent or slow."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cli.net_loading import load_net
from cpn import Net
from cpn.web import WebSession
from tests import test_web_browser as served
from tests.test_web_browser import Page
from tests.web_nets import BREAKPOINTS, build_net

pytestmark = served.pytestmark  # skipped without Chromium or Graphviz
browser = served.browser  # the fixture: a Chromium for this file's tests


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
    box = page.page.eval_on_selector(".drawing", "(d) => d.getBoundingClientRect().toJSON()")
    page.page.mouse.move(box["x"] + 400, box["y"] + 20)  # the background: a drag pans
    page.page.mouse.down()
    page.page.mouse.move(box["x"] + 250, box["y"] + 20, steps=5)
    page.page.mouse.up()
    assert page.page.eval_on_selector(".drawing", "(d) => d.scrollLeft") == 150

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
    fitted = name_size()
    page.page.set_viewport_size({"width": 900, "height": 800})  # a wider cell: still fitted
    page.page.wait_for_function(f"Math.min(...({NAME_SIZES})()) > {fitted} + 1")
    wide, seen, _ = page.page.eval_on_selector(".drawing", pane)
    assert wide <= seen
    assert page.errors == []


#: A patience far above an answer's latency on a busy machine (two cores running the
#: suite and a browser), and far below the tests' waits.
PATIENCE = 2.0
SILENT = (f"the kernel has not answered for {PATIENCE:g} s: it is busy with another cell "
          "(the page goes on when it answers) or it stopped; if it stopped or restarted, "
          "run the widget's cell again")


def test_a_widget_whose_kernel_never_answers_says_so_and_stays_usable(browser, tmp_path):
    # A request the kernel never answered (it died, or restarted and dropped
    # it) left the page waiting for ever, saying nothing; so did a run.
    widget = stepper_widget(WebSession(slow_net(100)))
    widget.patience = PATIENCE
    page = widget_page(browser, tmp_path, widget)
    page.page.evaluate("window.kernelSilent = true")
    page.page.click(".step")
    page.page.wait_for_selector(".log li.error", timeout=15_000)
    assert page.log() == [SILENT] and widget.session.simulator.steps == 0
    page.page.evaluate("window.kernelSilent = false")  # the cell run again: a kernel back
    page.click(".step")
    assert page.text(".clock") == "time 0   step 1"

    page.page.fill(".run-steps", "80")
    page.page.click(".run-steps-go")  # 80 steps, 4 s: the kernel goes silent during it
    page.page.wait_for_selector(".stop:not([disabled])")
    page.page.evaluate("window.kernelSilent = true")
    page.page.wait_for_function("document.querySelectorAll('.log li.error').length == 2",
                                timeout=15_000)
    assert page.log()[-1] == SILENT
    assert page.page.is_hidden(".busy") and page.page.is_enabled(".step")
    assert page.errors == []


def test_a_slow_kernel_is_waited_for_and_its_late_answer_drawn(browser, tmp_path):
    # A run longer than the patience is not given up on: its progress, polled,
    # says the kernel is alive.
    widget = stepper_widget(WebSession(slow_net(100)))
    widget.patience = PATIENCE
    page = widget_page(browser, tmp_path, widget)
    page.page.fill(".run-steps", "60")
    page.act(lambda: page.page.click(".run-steps-go"))  # 3 s
    assert page.text(".clock") == "time 0   step 60"
    assert not any("error" in line or "not answered" in line for line in page.log())
    # A kernel busy with another cell answers late: the page said so, then draws it.
    page.page.evaluate(f"window.kernelDelay = {1500 * PATIENCE}")
    page.act(lambda: (page.page.click(".step"), page.page.evaluate("window.kernelDelay = 0")))
    log = page.log()
    assert log[log.index(SILENT) + 1:][:2] == ["the kernel answers again", "fired 1 step; time 0"]
    assert page.text(".clock") == "time 0   step 61" and page.errors == []


def test_a_widget_whose_comm_closed_says_so_at_once(browser, tmp_path):
    # Its waiting request waited for ever, though ipywidgets had said the comm closed.
    page = widget_page(browser, tmp_path, stepper_widget(WebSession(build_net())))
    page.page.evaluate("window.kernelSilent = true")
    page.page.click(".step")
    page.page.evaluate("window.closeComm()")
    page.page.wait_for_selector(".log li.error", timeout=5_000)  # not the 60 s of patience
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
