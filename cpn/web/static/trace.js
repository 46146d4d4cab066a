// The trace: saved as a file the browser downloads, and loaded from a file
// the user picks, which the session replays.

import { element } from "./elements.js";
import { log } from "./log.js";

export function wireTrace(page) {
  page.$("save-trace").onclick = () => saveTrace(page);
  page.$("load-trace").onchange = async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    await page.command("load", { text: await file.text(), name: file.name });
    event.target.value = "";  // the same file picked again is a change again
  };
}

async function saveTrace(page) {
  const { status, data } = await page.transport.read("trace");
  if (status !== 200) return log(page, data.error, "error");
  const link = element("a");
  link.href = URL.createObjectURL(new Blob([data.text], { type: "application/jsonl" }));
  link.download = data.name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}
