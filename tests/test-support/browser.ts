/**
 * A real browser for the tests of what a person sees (the web console, Swagger UI): headless
 * Chromium from the Debian package `chromium` (scripts/ensure-servers.sh installs it), driven by
 * playwright-core. playwright-core downloads no browser of its own, so the tests use the one the
 * machine has; `TWINPORT_CHROMIUM` names another executable.
 *
 * When a test fails, `withPage` keeps a screenshot and the page's console output under
 * `test-artifacts/browser/` (git-ignored), so a CI failure can be seen, not guessed.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { TestContext } from "node:test";
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

export const ARTIFACTS_DIR = resolve(import.meta.dirname, "../../test-artifacts/browser");

export function chromiumPath(): string {
  const configured = process.env.TWINPORT_CHROMIUM;
  if (configured) return configured;
  const found = CANDIDATES.find((path) => existsSync(path));
  if (!found) throw new Error(`no Chromium found (${CANDIDATES.join(", ")}); run scripts/ensure-servers.sh as root`);
  return found;
}

export async function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs the tests as root, where Chromium refuses its sandbox.
  return chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox", "--disable-dev-shm-usage"] });
}

/**
 * Runs `fn` in a fresh browser context (its own cookies and storage). Self-signed certificates
 * are accepted: the servers under test make their own (spec: HTTPS with a self-signed certificate
 * unless configured).
 */
export async function withPage<T>(
  t: TestContext,
  browser: Browser,
  fn: (page: Page) => Promise<T>,
  options: BrowserContextOptions = {},
): Promise<T> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, ...options });
  const page = await context.newPage();
  const consoleLines: string[] = [];
  page.on("console", (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => consoleLines.push(`pageerror: ${error.message}`));
  try {
    return await fn(page);
  } catch (error) {
    await keepArtifacts(t.fullName, page, consoleLines);
    throw error;
  } finally {
    await context.close();
  }
}

async function keepArtifacts(testName: string, page: Page, consoleLines: string[]): Promise<void> {
  const base = join(ARTIFACTS_DIR, testName.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 150));
  try {
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await page.screenshot({ path: `${base}.png`, fullPage: true });
    writeFileSync(`${base}.console.txt`, `${page.url()}\n${consoleLines.join("\n")}\n`);
  } catch {
    // A page that crashed cannot be photographed; the test's own error says what failed.
  }
}
