/** Each job name must have exactly one handler: none means jobs pile up, two means they run twice. */
export function checkJobHandlers(
  jobNames: readonly string[],
  found: readonly { jobName: string; handler: string }[],
): string[] {
  const problems: string[] = [];
  const known = new Set<string>(jobNames);
  for (const name of known) {
    const handlers = found.filter((f) => f.jobName === name).map((f) => f.handler);
    if (handlers.length === 0) problems.push(`job "${name}" has no handler`);
    if (handlers.length > 1)
      problems.push(`job "${name}" has ${handlers.length} handlers: ${handlers.join(', ')}`);
  }
  for (const f of found) {
    if (!known.has(f.jobName)) problems.push(`${f.handler} handles "${f.jobName}", which is not in JobName`);
  }
  return problems;
}
