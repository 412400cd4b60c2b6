import type { DataSource } from 'typeorm';

/**
 * Deletes the rows of `table` matching `where` (parameters $1… in `params`) in batches of `batch`
 * rows picked by ctid, so no statement locks many rows or runs long, at most `batches` batches per
 * call (the rest waits for the next one). Returns how many rows went.
 */
export async function deleteInBatches(
  db: DataSource,
  table: string,
  where: string,
  params: readonly unknown[],
  limits: { batch: number; batches: number },
): Promise<number> {
  let total = 0;
  for (let i = 0; i < limits.batches; i++) {
    const [, n] = (await db.query(
      `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${where} LIMIT ${limits.batch})`,
      [...params],
    )) as [unknown, number];
    total += Number(n ?? 0);
    if (Number(n ?? 0) < limits.batch) break;
  }
  return total;
}
