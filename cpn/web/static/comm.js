// The notebook widget's transport (widget.py): the page's requests go over
// the widget's comm to the kernel, each with an id that its answer repeats.
// Every view of the widget (shown in two cells, say) hears every answer, so
// an id names its view too.  A message without an id says the state changed
// elsewhere (StepperWidget.tell).  widget.py puts this file after
// stepper.js in one module: mount is stepper.js's.
//
// A kernel that died or restarted may never answer: a closed comm sends
// nothing, and a new kernel drops messages for a comm it never opened.  So a
// request fails, saying so, once the kernel has said nothing at all for
// `patience` seconds (the widget's trait).  The wait counts from the last
// message heard, not from the request: a long run is polled for its
// progress every 200 ms, and each answer proves the kernel alive.  A kernel
// busy with another cell answers late; that answer draws the page again.

const CLOSED = "the kernel closed the widget's connection (restarted or shut down): " +
  "run the widget's cell again";

function silentFor(seconds) {
  return `the kernel has not answered for ${seconds} s: it is busy with another cell ` +
    "(the page goes on when it answers) or it stopped; if it stopped or restarted, " +
    "run the widget's cell again";
}

export function commTransport(model) {
  const view = Math.random().toString(36).slice(2);
  let last = 0;
  const waiting = new Map();  // id of a request: the function that settles it
  const late = new Set();  // ids given up on: an answer to one says the kernel is back
  const watchers = [], revivals = [];
  let silence = null;  // the timer that gives up on the waiting requests

  // Settle every waiting request with an error, remembering their ids.
  const giveUp = (error) => {
    clearTimeout(silence);
    silence = null;
    for (const [id, settle] of waiting) {
      late.add(id);
      settle({ status: 0, data: { error } });
    }
    waiting.clear();
  };
  // (Re)start the wait for the kernel, while something waits for it.
  const listen = () => {
    clearTimeout(silence);
    const seconds = model.get("patience");
    silence = waiting.size ? setTimeout(() => giveUp(silentFor(seconds)), 1000 * seconds) : null;
  };
  const heard = (message) => {
    if ("changed" in message) return watchers.forEach((watch) => watch(message.changed));
    if (late.has(message.id)) {
      late.clear();
      return revivals.forEach((revive) => revive());
    }
    const settle = waiting.get(message.id);
    if (!settle) return;
    waiting.delete(message.id);
    settle({ status: message.status, data: message.data });
  };
  model.on("msg:custom", (message) => {
    heard(message);
    listen();  // any message, to this view or not, says the kernel is alive
  });
  // ipywidgets' events as the kernel's comm closes, and as the model goes.
  model.on("comm:close", () => giveUp(CLOSED));
  model.on("destroy", () => giveUp(CLOSED));

  const request = (kind, name, args) => new Promise((resolve) => {
    last += 1;
    const id = `${view}:${last}`;
    waiting.set(id, resolve);
    if (!silence) listen();  // else the kernel is silent since an earlier request: one wait
    try {
      model.send({ id, kind, name, args: args || {} });
    } catch (error) {
      waiting.delete(id);
      resolve({ status: 0, data: { error: "the kernel does not answer (restarted?): " +
        `run the widget's cell again (${error.message || error})` } });
    }
  });
  return {
    read: (name, query) => request("reading", name, query),
    command: (name, body) => request("command", name, body),
    onChanged: (watch) => watchers.push(watch),
    onRevived: (revive) => revivals.push(revive),
  };
}

export default { render({ model, el }) { mount(el, commTransport(model)); } };
