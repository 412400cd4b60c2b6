// How the simulator's tables write a share: "96.4 %", "-" when there is none.
export function percent(share: number | null | undefined): string {
  return share == null ? '-' : `${(share * 100).toFixed(1)} %`;
}
