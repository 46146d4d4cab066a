// The served page's transport (index.html): requests over HTTP to the
// server that served the page.  A server that no longer answers (stopped
// with Ctrl-C) is an error the log shows; so is an answer that is not JSON
// (a proxy's page, say), by its status and text.

export function httpTransport() {
  const answered = async (request) => {
    let response, text;
    try {
      response = await request;
      text = await response.text();
    } catch (error) {
      return { status: 0, data: { error: `the server does not answer (stopped?): ${error}` } };
    }
    try {
      return { status: response.status, data: JSON.parse(text) };
    } catch {
      const said = text.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim().slice(0, 300);
      return { status: response.status, data: { error:
        `the server answered ${response.status} ${response.statusText}: ${said || "(nothing)"}`,
      } };
    }
  };
  return {
    read: (name, query) => answered(fetch(`/api/${name}?` + new URLSearchParams(query || {}))),
    command: (name, body) => answered(fetch(`/api/${name}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body || {}),
    })),
  };
}
