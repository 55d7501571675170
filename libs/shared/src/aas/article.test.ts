import assert from "node:assert/strict";
import { test } from "node:test";
import { withArticle } from "./article.ts";

test("model types get the article their first letter asks for", () => {
  assert.equal(withArticle("Operation"), "an Operation");
  assert.equal(withArticle("AnnotatedRelationshipElement", true), "An AnnotatedRelationshipElement");
  assert.equal(withArticle("Entity", true), "An Entity");
  assert.equal(withArticle("Property"), "a Property");
  assert.equal(withArticle("SubmodelElementList", true), "A SubmodelElementList");
});
