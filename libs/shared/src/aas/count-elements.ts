/**
 * How many submodel elements a list holds, nested ones included (collection and list values,
 * entity statements, annotations, operation variables): the size a person reads in the start
 * banner and in progress lines.
 */
export function countSubmodelElements(elements: unknown): number {
  if (!Array.isArray(elements)) return 0;
  let count = 0;
  for (const element of elements) {
    // A MultiLanguageProperty's value is a list too, of language strings: not elements.
    if (
      element === null ||
      typeof element !== "object" ||
      typeof (element as { modelType?: unknown }).modelType !== "string"
    )
      continue;
    count++;
    const { value, statements, annotations, inputVariables, outputVariables, inoutputVariables } = element as Record<
      string,
      unknown
    >;
    if (Array.isArray(value)) count += countSubmodelElements(value);
    count += countSubmodelElements(statements) + countSubmodelElements(annotations);
    for (const variables of [inputVariables, outputVariables, inoutputVariables])
      if (Array.isArray(variables))
        count += countSubmodelElements(variables.map((variable) => (variable as { value?: unknown } | null)?.value));
  }
  return count;
}
