/**
 * A model type's name with its indefinite article, for messages: "an Operation", "a Property".
 * The metamodel's class names all begin with a letter pronounced as written, so the first letter decides.
 */
export function withArticle(name: string, capital = false): string {
  const article = /^[AEIOU]/i.test(name) ? "an" : "a";
  return `${capital ? article[0]!.toUpperCase() + article.slice(1) : article} ${name}`;
}
