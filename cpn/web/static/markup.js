// The stepping page's elements, which the page's parts (stepper.js and the
// files it imports) fill and wire by their class names.

export const MARKUP = `
<header>
  <h1 class="net">cpn step</h1>
  <span class="clock"></span>
  <span class="busy" hidden>running…</span>
</header>
<main>
  <section class="drawing-pane">
    <nav>
      <span class="crumbs"></span>
      <label>module <select class="module"></select></label>
      <span class="zoom">
        <button class="zoom-out" title="smaller (or ctrl/⌘ + wheel)">−</button>
        <span class="zoom-level" title="the drawing's size, of Graphviz's"></span>
        <button class="zoom-in" title="larger (or ctrl/⌘ + wheel)">+</button>
        <button class="zoom-fit" title="the drawing's whole width in view">Fit</button>
      </span>
    </nav>
    <div class="drawing"></div>
  </section>
  <aside>
    <section class="controls">
      <div class="row">
        <button class="step"
          title="fire the binding a run would choose (advancing the clock if needed)">Step</button>
        <button class="advance" title="move the clock to the next event">Advance clock</button>
        <button class="undo">Undo</button>
        <button class="redo">Redo</button>
      </div>
      <div class="row">
        <label>run <input class="run-steps" type="number" min="1" step="1" value="10"> steps</label>
        <button class="run-steps-go">Run</button>
      </div>
      <div class="row">
        <label>run to time <input class="run-until" type="number" step="any" value="100"></label>
        <button class="run-until-go">Run</button>
      </div>
      <div class="row">
        <button class="run-breakpoint">Run to a breakpoint</button>
        <button class="stop" disabled>Stop</button>
      </div>
      <div class="row progress-row" hidden>
        <progress class="progress" max="1"></progress> <span class="progress-text"></span>
      </div>
    </section>
    <section class="bindings">
      <h2>Enabled bindings <span class="enabled-count"></span></h2>
      <p class="waiting note"></p>
      <table><tbody class="binding-rows"></tbody></table>
    </section>
    <section class="tokens" hidden>
      <h2>Tokens of <span class="tokens-place"></span></h2>
      <p class="tokens-note note"></p>
      <div class="scroll"><table class="tokens-table"></table></div>
    </section>
    <section>
      <h2>Places</h2>
      <div class="scroll"><table><tbody class="place-rows"></tbody></table></div>
    </section>
    <section>
      <h2>Breakpoints</h2>
      <form class="bp-transition-form row">
        <label>after <select class="bp-transition names"></select> fires</label>
        <button>Add</button>
      </form>
      <form class="bp-place-form row">
        <label>when <select class="bp-place names"></select></label>
        <label>holds <select class="bp-op">
          <option>&gt;=</option><option>&gt;</option><option>==</option>
          <option>!=</option><option>&lt;=</option><option>&lt;</option>
        </select></label>
        <input class="bp-count" type="number" min="0" step="1" value="1"> tokens
        <button>Add</button>
      </form>
      <form class="bp-named-form row" hidden>
        <label>when <select class="bp-named names"></select> holds (from the net file)</label>
        <button>Add</button>
      </form>
      <ol class="bp-list"></ol>
    </section>
    <section>
      <h2>Trace</h2>
      <div class="row">
        <button class="save-trace">Save trace</button>
        <label>load <input class="load-trace" type="file" accept=".jsonl,.json,.txt"></label>
      </div>
    </section>
    <section>
      <h2>Log</h2>
      <ol class="log"></ol>
    </section>
  </aside>
</main>`;
