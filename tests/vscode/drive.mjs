// Drives code-server in headless Chromium (playwright-core) and prints one JSON line of
// results on stdout. Used by test_vscode_e2e.py; run by hand as:
//   node drive.mjs <url> <screenshot-dir> [configured|install|model|rewrite|scores]
// In "install" mode docfact's own environment does not exist yet: the extension's message offers
// to install it, which is clicked first. In "model" mode (a model configured, shop/judged.py in
// the workspace) the file is edited once and saved, and the model's DF301 must then appear in
// the editor and the Problems panel with no further keystroke. In "rewrite" mode (a model and
// SONAR configured, shop/bounds.py) a verified rewrite is asked for and applied; in "scores"
// mode (shop/scored.py) the scores are asked for and read in the hover.
// NODE_PATH must let `import("playwright-core")` resolve (the test sets it).
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const { chromium } = require("playwright-core");

const [url, shots, mode = "configured"] = process.argv.slice(2);
const results = { steps: [] };
const step = (name, data = {}) => {
  results.steps.push({ name, ...data });
  process.stderr.write(`[drive] ${name} ${JSON.stringify(data)}\n`);
};

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
const shot = async (name) => {
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({ path: file });
  step(`screenshot ${name}`, { file });
};

// The Problems panel's tree is virtualised: only the rows on screen are in the page. Scroll
// it through from the top and keep every row seen, in order.
const allProblemRows = async (markers) => {
  const seen = [];
  const collect = async () => {
    let added = 0;
    for (const text of await markers.locator(".monaco-list-row").allInnerTexts()) {
      if (!seen.includes(text)) {
        seen.push(text);
        added++;
      }
    }
    return added;
  };
  await collect();
  const box = await markers.locator(".monaco-list").first().boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let scrolls = 0; scrolls < 50; scrolls++) {
    await page.mouse.wheel(0, box.height / 2);
    await page.waitForTimeout(300);
    if ((await collect()) === 0) break;
  }
  step("problems read", { rows: seen.length });
  return seen.join("\n");
};

// The model's finding after a save: squiggles first (the rules'), then one edit (a new line
// at the end) and Control+S; nothing is typed after it.
const modelAfterSave = async () => {
  await page.waitForSelector(".monaco-editor .squiggly-warning, .monaco-editor .squiggly-error, .monaco-editor .squiggly-info", { timeout: 120_000 });
  step("squiggles shown");
  await page.keyboard.press("Control+Shift+M");
  const markers = page.locator(".markers-panel");
  await markers.waitFor({ timeout: 20_000 });
  results.before = (await markers.innerText()).trim();
  const squiggles = () => page.locator(".monaco-editor .squiggly-warning, .monaco-editor .squiggly-error, .monaco-editor .squiggly-info").count();
  results.squigglesBefore = await squiggles();
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+End");
  await page.keyboard.press("Enter");
  await page.keyboard.press("Control+S");
  step("saved");
  // litellm's first import and the model's answer: the server sends a refresh, VS Code pulls.
  await page.waitForFunction(() => /DF301/.test(document.querySelector(".markers-panel")?.textContent ?? ""), null, { timeout: 240_000 });
  step("model finding shown");
  await page.waitForTimeout(1000);
  results.problems = (await markers.innerText()).trim();
  results.squigglesAfter = await squiggles();
  await shot("5-model-finding-after-save");
};

// The text of the hover card on the name `name`, hovered again until it matches `wanted`.
const hoverOn = async (name, wanted) => {
  const word = page.locator(".monaco-editor .view-line span", { hasText: new RegExp(`^${name}$`) }).first();
  await word.waitFor({ timeout: 20_000 });
  const box = await word.boundingBox();
  let text = "";
  for (let attempt = 0; attempt < 5 && !wanted.test(text); attempt++) {
    await page.mouse.move(box.x + 5, box.y + 200);
    await page.waitForTimeout(300);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForTimeout(2500);
    text = (await page.locator(".monaco-hover").allInnerTexts()).join("\n");
  }
  return text;
};

// Whether the docfact hover on screen shows all of its card without scrolling: its
// scrolled element (VS Code caps it at max(editor height / 4, 250) px) holds no more than
// it shows; and the link to the card's details.
const hoverLayout = () =>
  page.evaluate(() => {
    const hover = [...document.querySelectorAll(".monaco-hover")].find((h) => h.offsetParent !== null && /docfact/.test(h.textContent ?? ""));
    if (!hover) return null;
    const content = hover.querySelector(".monaco-hover-content") ?? hover;
    const link = [...hover.querySelectorAll("a")].find((a) => /^Details/.test(a.textContent ?? ""));
    return {
      scrollHeight: content.scrollHeight,
      clientHeight: content.clientHeight,
      height: Math.round(content.getBoundingClientRect().height),
      link: link?.textContent ?? null,
    };
  });

// The scores in the hover: "docfact: Score Docstrings of This File" from the command palette
// (SONAR and SSC in the background, scripted model), then the card on `larger`, whose low
// Correctness is also a warning (DF304).
const scoresInTheHover = async () => {
  await page.keyboard.press("F1");
  await page.waitForSelector(".quick-input-widget input", { timeout: 20_000 });
  await page.keyboard.type("docfact: Score Docstrings of This File");
  const command = page.locator(".quick-input-list .monaco-list-row", { hasText: "Score Docstrings of This File" }).first();
  await command.waitFor({ timeout: 30_000 });
  await command.click();
  step("scores asked for");
  await page.keyboard.press("Control+Shift+M");
  // The first scoring of a session trains the fluency model: minutes on a loaded machine.
  await page.waitForFunction(() => /DF304/.test(document.querySelector(".markers-panel")?.textContent ?? ""), null, { timeout: 600_000 });
  step("scores arrived");
  results.hover = await hoverOn("larger", /Correctness/);
  results.hoverLayout = await hoverLayout();
  await shot("8-scores-hover");
  // The link at the card's foot opens its details in an editor tab (read-only markdown).
  await page.locator(".monaco-hover a", { hasText: /^Details/ }).first().click();
  await page.waitForFunction(() => [...document.querySelectorAll(".monaco-editor .view-lines")].some((e) => /Measurement\sdetails/.test(e.textContent ?? "")), null, { timeout: 30_000 });
  await page.waitForTimeout(1000);
  const shown = page.locator(".monaco-editor .view-lines", { hasText: /Measurement\sdetails/ }).first();
  results.details = (await shown.innerText()).replace(/\u00a0/g, " ");
  results.tabs = (await page.locator(".tabs-container .tab").allInnerTexts()).join(" | ");
  await shot("9-scores-details");
};

// The cursor to "line:column" of the editor (Go to Line).
const goTo = async (position) => {
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+G");
  await page.waitForSelector(".quick-input-widget input", { timeout: 20_000 });
  await page.keyboard.type(position);
  await page.keyboard.press("Enter");
};

// A verified rewrite applied once: on clamp's description (line 2) the code action asks for
// rewrites, SONAR verifies them in the background (scripted model, real sandbox), and the
// one offered then is applied.
const codeActions = async (wanted, attempts) => {
  for (let attempt = 0; attempt < attempts; attempt++) {
    await goTo("2:30");
    await page.waitForTimeout(500);
    await page.keyboard.press("Control+.");
    const row = page.locator(".action-widget .monaco-list-row", { hasText: wanted }).first();
    if (await row.waitFor({ timeout: 5_000 }).then(() => true, () => false)) {
      return row;
    }
    await page.keyboard.press("Escape");
    await page.waitForTimeout(2000); // the server may still be starting or indexing
  }
  throw new Error(`no code action "${wanted}": ${(await page.locator(".action-widget").allInnerTexts()).join(" | ")}`);
};

const rewriteApplied = async () => {
  const ask = await codeActions("more abstractly (rewrites verified by SONAR)", 30);
  results.asked = await ask.innerText();
  await ask.click();
  step("rewrites asked for");
  const note = page.locator(".notification-toast", { hasText: "verified rewrite" }).first();
  await note.waitFor({ timeout: 400_000 });
  results.note = await note.innerText();
  step("rewrites verified");
  const offer = await codeActions("SONAR Abstraction", 3);
  results.offer = await offer.innerText();
  await shot("6-rewrite-offered");
  await offer.click();
  const editor = page.locator(".monaco-editor .view-lines").first();
  // (the editor draws spaces as no-break spaces: \s matches both)
  await page.waitForFunction(() => /limited\sto\sthe\srange/.test(document.querySelector(".monaco-editor .view-lines")?.textContent ?? ""), null, { timeout: 20_000 });
  results.after = (await editor.innerText()).replace(/\u00a0/g, " ");
  step("rewrite applied");
  await shot("7-rewrite-applied");
};

// The static checks' walk-through: (the install offer,) squiggles, the Problems panel, the
// hover, a quick fix applied and saved.
const staticChecks = async () => {
  if (mode === "install") {
    // Opening a Python file activated the extension, which found the .venv without docfact.
    // The notification's button: "Install docfact into <the .venv>".
    const install = page.locator(".notification-toast .monaco-button", { hasText: /^Install docfact into / }).first();
    await install.waitFor({ timeout: 120_000 });
    results.offer = (await page.locator(".notification-toast").allInnerTexts()).join("\n");
    await shot("0-install-offer");
    await install.click();
    step("install clicked");
    // pip installs the wheel and its dependencies, then the server restarts.
    await page.locator(".notification-toast", { hasText: "docfact: installed into" }).first().waitFor({ timeout: 480_000 });
    step("installed");
  }

  // Diagnostics arrive from the server (squiggles in the editor).
  await page.waitForSelector(".monaco-editor .squiggly-warning, .monaco-editor .squiggly-error, .monaco-editor .squiggly-info", { timeout: 120_000 });
  step("squiggles shown");
  await page.waitForTimeout(2000);

  // The Problems panel.
  await page.keyboard.press("Control+Shift+M");
  const markers = page.locator(".markers-panel");
  await markers.waitFor({ timeout: 20_000 });
  await page.waitForFunction(() => /DF\d{3}/.test(document.querySelector(".markers-panel")?.textContent ?? ""), null, { timeout: 60_000 });
  await page.waitForTimeout(1000);
  await shot("1-problems");
  results.problems = await allProblemRows(markers);

  // Hover the name of restock (a card shows on a function's name and on flagged words).
  results.hover = await hoverOn("restock", /docfact/);
  results.hoverLayout = await hoverLayout();
  await shot("2-hover");

  // A quick fix on the `ammount` finding: go to the line, open the quick fix menu, accept.
  await page.keyboard.press("Escape");
  await goTo("27:10");
  await page.waitForTimeout(1000);
  results.before = await page.locator(".monaco-editor .view-lines").first().innerText();
  await page.keyboard.press("Control+.");
  await page.waitForSelector(".action-widget, .context-view .monaco-list", { timeout: 20_000 });
  await page.waitForTimeout(1000);
  results.actions = (await page.locator(".action-widget").allInnerTexts()).join("\n");
  await shot("3-quickfix-menu");
  await page.keyboard.press("Enter");
  await page.waitForTimeout(2000);
  results.after = await page.locator(".monaco-editor .view-lines").first().innerText();
  await page.keyboard.press("Control+S");
  await page.waitForTimeout(3000);
  await shot("4-after-fix");
};

try {
  await page.goto(url, { waitUntil: "domcontentloaded", timeout: 120_000 });
  await page.waitForSelector(".monaco-workbench", { timeout: 120_000 });
  await page.waitForTimeout(3000);
  step("workbench loaded");

  // Open inventory/stock.py (shop/judged.py) with Quick Open.
  await page.locator(".monaco-workbench").click({ position: { x: 700, y: 400 } }).catch(() => {});
  await page.keyboard.press("Control+P");
  await page.waitForSelector(".quick-input-widget input", { timeout: 20_000 });
  const opened = { model: "judged.py", rewrite: "bounds.py", scores: "scored.py" }[mode] ?? "stock.py";
  await page.keyboard.type(opened);
  // Wait for the file among the results (a busy machine is slow to search), then open it.
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: opened }).first();
  await row.waitFor({ timeout: 30_000 });
  await page.waitForTimeout(500);
  await row.click();
  await page.waitForSelector(".monaco-editor .view-lines", { timeout: 60_000 });
  step(`opened ${opened}`);

  if (mode === "model") {
    await modelAfterSave();
  } else if (mode === "rewrite") {
    await rewriteApplied();
  } else if (mode === "scores") {
    await scoresInTheHover();
  } else {
    await staticChecks();
  }

  // The language status item (next to "Python" in the status bar).
  const statusBar = page.locator(".statusbar");
  results.statusbar = await statusBar.innerText().catch(() => "");
  results.ok = true;
} catch (error) {
  results.ok = false;
  results.error = String(error && error.stack ? error.stack : error);
  await shot("error").catch(() => {});
} finally {
  await browser.close();
  process.stdout.write(JSON.stringify(results) + "\n");
}
