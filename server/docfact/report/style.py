"""The report page's inline CSS (light and dark) and its small table script (sorting,
filtering, pages). The page reads fine without the script: every row is then shown."""

CSS = """
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --panel: #f6f8fa;
  --accent: #2f6fbf; --accent-soft: #dbe8f7; --marker: #c2410c; --link: #0a58ca;
  --error: #b42318; --warning: #9a6700; --information: #1f6feb; --hint: #57606a;
  --low: #b42318; --high: #1a7f37; --low-bar: #d9822b;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1419; --fg: #e6edf3; --muted: #9aa5b1; --line: #30363d; --panel: #161b22;
    --accent: #5b9be6; --accent-soft: #1c2b3f; --marker: #f0883e; --link: #79b8ff;
    --error: #ff7b72; --warning: #d29922; --information: #79b8ff; --hint: #9aa5b1;
    --low: #ff7b72; --high: #56d364; --low-bar: #e3a15a;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
}
header, main { max-width: 1200px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 24px; }
h1 { font-size: 1.6rem; margin: 0 0 4px; }
h2 {
  font-size: 1.25rem; margin: 32px 0 12px; padding-bottom: 4px;
  border-bottom: 1px solid var(--line);
}
h3 { font-size: 1rem; margin: 0 0 8px; }
a { color: var(--link); }
code, .mono {
  font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.88em;
}
.meta { color: var(--muted); margin: 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 12px; }
.card {
  background: var(--panel); border: 1px solid var(--line); border-radius: 8px;
  padding: 12px 16px;
}
.card .number { font-size: 1.7rem; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .what { color: var(--muted); font-size: 0.9rem; }
.grid {
  display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 16px;
  margin-top: 16px;
}
.panel {
  background: var(--panel); border: 1px solid var(--line); border-radius: 8px;
  padding: 12px 16px;
}
.counts { border-collapse: collapse; width: 100%; }
.counts td { padding: 2px 6px; border-bottom: 1px solid var(--line); }
.counts tr:last-child td { border-bottom: 0; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.scores { list-style: none; padding: 0; margin: 0; }
.scores li { margin: 4px 0; }
.ok { color: var(--high); font-weight: 600; }
.missing { color: var(--muted); }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 16px; }
figure {
  margin: 0; background: var(--panel); border: 1px solid var(--line); border-radius: 8px;
  padding: 12px 16px;
}
figcaption { font-weight: 600; }
figcaption + .note { margin: 0 0 8px; }
figure.wide { grid-column: 1 / -1; }
.small-multiples { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 8px 16px; }
.small-multiples h3 { font-size: 0.85rem; font-weight: 600; margin: 0; color: var(--muted); }
.plot { max-width: 100%; height: auto; display: block; }
.plot text { font: 12px system-ui, sans-serif; }
.plot .label { fill: var(--fg); }
.plot .value { fill: var(--muted); paint-order: stroke; stroke: var(--panel); stroke-width: 3px; }
.plot .bar { fill: var(--accent); }
.plot .bar.low { fill: var(--low-bar); }
.plot .axis { stroke: var(--muted); stroke-width: 1; }
.plot .marker { stroke: var(--marker); stroke-width: 2; stroke-dasharray: 4 3; }
.plot .marker-label { fill: var(--marker); font-weight: 600; }
.empty { color: var(--muted); font-style: italic; padding: 24px 8px; text-align: center; }
.controls { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin-bottom: 8px; }
.controls input { font: inherit; padding: 4px 8px; min-width: 260px; color: var(--fg);
  background: var(--bg); border: 1px solid var(--line); border-radius: 6px; }
.controls button, th button { font: inherit; color: inherit; }
.controls button {
  padding: 3px 10px; background: var(--panel); border: 1px solid var(--line); border-radius: 6px;
  cursor: pointer;
}
.controls button:disabled { opacity: 0.5; cursor: default; }
.note { color: var(--muted); font-size: 0.9rem; }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 8px; }
table.functions { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
.functions th { position: sticky; top: 0; background: var(--panel); text-align: left;
  border-bottom: 1px solid var(--line); padding: 0; white-space: nowrap; }
.functions th.num { text-align: right; }
.functions th button { background: none; border: 0; padding: 6px 8px; width: 100%;
  text-align: inherit; font-weight: 600; cursor: pointer; }
.functions th[aria-sort="ascending"] button::after { content: " \\25B2"; }
.functions th[aria-sort="descending"] button::after { content: " \\25BC"; }
.functions td { padding: 5px 8px; vertical-align: top; }
.functions tbody { border-bottom: 1px solid var(--line); }
.functions tbody:hover { background: var(--accent-soft); }
.functions .symbol { overflow-wrap: anywhere; }
.functions .where { white-space: nowrap; }
.functions .where a + a { margin-left: 6px; font-size: 0.8rem; }
.none { color: var(--muted); }
.label-low { color: var(--low); font-weight: 600; }
.label-high { color: var(--high); font-weight: 600; }
tr.findings td { padding-top: 0; }
tr.findings ul { margin: 0; padding-left: 18px; }
tr.findings li { margin: 2px 0 6px; }
.sentence { display: block; color: var(--muted); border-left: 3px solid var(--line);
  padding-left: 8px; margin-top: 2px; white-space: pre-wrap; overflow-wrap: anywhere; }
.sev { font-size: 0.75rem; font-weight: 600; text-transform: uppercase; letter-spacing: 0.03em; }
.sev-error { color: var(--error); } .sev-warning { color: var(--warning); }
.sev-information { color: var(--information); } .sev-hint { color: var(--hint); }
footer {
  max-width: 1200px; margin: 32px auto; padding: 0 24px; color: var(--muted); font-size: 0.85rem;
}
"""

# Rows are <tbody> elements (a function and its findings): sorting moves whole groups.
SCRIPT = """
(() => {
  const table = document.getElementById("functions");
  if (!table) return;
  const size = Number(table.dataset.pageSize);
  const bodies = Array.from(table.tBodies);
  const filter = document.getElementById("filter");
  const info = document.getElementById("page-info");
  const prev = document.getElementById("prev"), next = document.getElementById("next");
  let shown = bodies, page = 0;
  document.getElementById("controls").hidden = false;
  const draw = () => {
    const pages = Math.max(1, Math.ceil(shown.length / size));
    page = Math.min(Math.max(page, 0), pages - 1);
    const visible = new Set(shown.slice(page * size, (page + 1) * size));
    for (const body of bodies) body.hidden = !visible.has(body);
    info.textContent = shown.length
      ? `${page * size + 1}\\u2013${Math.min((page + 1) * size, shown.length)} of ${shown.length}`
      : "no function matches";
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  };
  const select = () => {
    const query = filter.value.trim().toLowerCase();
    shown = bodies.filter((body) => body.dataset.search.includes(query));
  };
  filter.addEventListener("input", () => { select(); page = 0; draw(); });
  prev.addEventListener("click", () => { page -= 1; draw(); });
  next.addEventListener("click", () => { page += 1; draw(); });
  for (const button of table.querySelectorAll("th button")) {
    button.addEventListener("click", () => {
      const header = button.parentElement;
      const key = button.dataset.key, numeric = button.dataset.numeric === "1";
      const ascending = header.getAttribute("aria-sort") !== "ascending";
      for (const other of table.tHead.rows[0].cells) other.removeAttribute("aria-sort");
      header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      const value = (body) => body.dataset[key];
      bodies.sort((a, b) => {
        const x = value(a), y = value(b);
        if (x === "" || y === "") return (x === "") - (y === "");  // no score: always last
        const order = numeric ? Number(x) - Number(y) : x.localeCompare(y);
        return ascending ? order : -order;
      });
      for (const body of bodies) table.appendChild(body);
      select(); page = 0; draw();
    });
  }
  draw();
})();
"""
