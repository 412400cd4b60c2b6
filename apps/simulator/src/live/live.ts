export async function runLive(_opts: { instances: number; seconds: number; url?: string }): Promise<void> {
  throw new Error('live mode: not built yet');
}
