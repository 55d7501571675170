/** What the console tests do and read on the page, as a person would: by visible names and text. */
import type { Locator, Page } from "playwright-core";

/** Waits until the locator's visible text (whitespace collapsed) matches; fails with what it showed. */
export async function seeText(locator: Locator, expected: RegExp, timeoutMs = 10_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  let last = "";
  for (;;) {
    try {
      last = (await locator.innerText({ timeout: 1_000 })).replace(/\s+/g, " ").trim();
      if (expected.test(last)) return last;
    } catch {
      // Not on the page (yet).
    }
    if (Date.now() > until) throw new Error(`expected ${expected} on the page; it showed: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The row of the element at an idShortPath in the open submodel. */
export function rowOf(page: Page, idShortPath: string): Locator {
  return page.locator(`tr[data-path="${idShortPath}"]`);
}

/** Clicks a submodel of a shell in the tree and waits for its elements. */
export async function openSubmodel(page: Page, shell: string, submodel: string): Promise<void> {
  await page
    .getByRole("list", { name: `Submodels of ${shell}` })
    .getByRole("button", { name: submodel })
    .click();
  await page
    .getByRole("region", { name: `Submodel ${submodel}` })
    .locator("tbody tr")
    .first()
    .waitFor();
}
