import type { AccessRuleInput } from "@twinport/shared";

/**
 * Whether any rule grants by semanticId: then an event hub watches the bus from the process's start
 * (EventHub.watch), so what the gateway knows of a submodel's semanticId reaches back that far.
 */
export function rulesGrantBySemanticId(rules: readonly AccessRuleInput[] | undefined): boolean {
  return rules?.some((rule) => rule.objects.some((object) => "semanticId" in object)) ?? false;
}
