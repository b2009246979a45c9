// Drives code-server in headless Chromium (playwright-core) and prints one JSON line of
// results on stdout. Used by test_vscode_e2e.py; run by hand as:
//   node drive.mjs <url> <screenshot-dir>
// NODE_PATH must let `import("playwright-core")` resolve (the test sets it).
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const { chromium } = require("playwright-core");

const [url, shots] = process.argv.slice(2);
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

try {
  await page.goto(url, { waitUntil: "domcontentloaded", timeout: 120_000 });
  await page.waitForSelector(".monaco-workbench", { timeout: 120_000 });
  await page.waitForTimeout(3000);
  step("workbench loaded");

  // Open inventory/stock.py with Quick Open.
  await page.locator(".monaco-workbench").click({ position: { x: 700, y: 400 } }).catch(() => {});
  await page.keyboard.press("Control+P");
  await page.waitForSelector(".quick-input-widget input", { timeout: 20_000 });
  await page.keyboard.type("stock.py");
  await page.waitForTimeout(1500);
  await page.keyboard.press("Enter");
  await page.waitForSelector(".monaco-editor .view-lines", { timeout: 30_000 });
  step("opened stock.py");

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
  results.problems = await markers.innerText();
  await shot("1-problems");

  // Hover the docstring of restock: its first line.
  const line = page.locator(".monaco-editor .view-line", { hasText: "Add stock to an item." }).first();
  await line.waitFor({ timeout: 20_000 });
  const box = await line.boundingBox();
  const hoverText = async () => (await page.locator(".monaco-hover").allInnerTexts()).join("\n");
  for (let attempt = 0; attempt < 5 && !/docfact/.test(results.hover ?? ""); attempt++) {
    await page.mouse.move(box.x + 5, box.y + 200);
    await page.waitForTimeout(300);
    await page.mouse.move(box.x + 90 + attempt * 15, box.y + box.height / 2);
    await page.waitForTimeout(2500);
    results.hover = await hoverText();
  }
  await shot("2-hover");

  // A quick fix on the `ammount` finding: go to the line, open the quick fix menu, accept.
  await page.keyboard.press("Escape");
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+G");
  await page.waitForSelector(".quick-input-widget input", { timeout: 20_000 });
  await page.keyboard.type("27:10");
  await page.keyboard.press("Enter");
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
