// The controls that move the net: a step, the clock advanced, undo and
// redo, runs of n steps, to a time or to a breakpoint, and Stop; and a long
// run followed, its progress shown, until it ends.

import { format } from "./elements.js";
import { log } from "./log.js";

export function wireRuns(page) {
  const { $ } = page;
  $("step").onclick = () => page.command("step");
  $("advance").onclick = () => page.command("advance");
  $("undo").onclick = () => page.command("undo");
  $("redo").onclick = () => page.command("redo");
  // An empty field is no number (Number("") is 0): said, not sent.
  const given = (name, what) => {
    const text = $(name).value.trim();
    if (text === "") log(page, `give ${what}`, "hint");
    return text === "" ? null : Number(text);
  };
  $("run-steps-go").onclick = () => {
    const steps = given("run-steps", "a number of steps to run");
    if (steps !== null) page.command("run", { steps });
  };
  $("run-until-go").onclick = () => {
    const until = given("run-until", "a time to run to");
    if (until !== null) page.command("run", { until });
  };
  $("run-breakpoint").onclick = () => page.command("run", {});
  $("stop").onclick = () => page.transport.command("stop");
}

export function renderRuns(page, state) {
  const { $ } = page;
  $("undo").disabled = !state.can_undo;
  $("redo").disabled = !state.can_redo;
  $("advance").disabled = state.enabled > 0 || state.waiting.includes("dead");
}

// Poll a run's progress until it ends, then draw where it got to.
export async function follow(page) {
  const { $ } = page;
  setBusy(page, true);
  for (;;) {
    const { status, data: progress } = await page.transport.read("progress");
    if (status === 0) {  // no server, or kernel: the run's end cannot be drawn
      log(page, progress.error, "error");
      return setBusy(page, false);
    }
    const fired = progress.steps - progress.from_steps;
    let fraction = null;
    if (progress.goal_steps) fraction = fired / progress.goal_steps;
    if (progress.goal_time > progress.from_time) {
      fraction = (progress.time - progress.from_time) / (progress.goal_time - progress.from_time);
    }
    const bar = $("progress");
    if (fraction === null) bar.removeAttribute("value"); else bar.value = fraction;
    $("progress-text").textContent = `${fired} fired, time ${format(progress.time)}`;
    $("clock").textContent = `time ${format(progress.time)}   step ${progress.steps}`;
    if (!progress.running) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  setBusy(page, false);
  await page.refresh();
}

function setBusy(page, busy) {
  const { $, root } = page;
  $("busy").hidden = !busy;
  $("stop").disabled = !busy;
  $("progress-row").hidden = !busy;
  // every control but Stop: the session refuses them while a run is on
  for (const button of root.querySelectorAll(
    ".controls button, .bindings button, aside button, .load-trace")) {
    if (!button.classList.contains("stop")) button.disabled = busy;
  }
  if (busy) delete root.dataset.ready;
}
