import { useStdout } from "ink";
import { useEffect, useState } from "react";

export interface TerminalSize {
  columns: number;
  rows: number;
}

/** The terminal's size, following resizes; `fixed` (tests, benchmarks) overrides it. */
export function useTerminalSize(fixed?: Partial<TerminalSize>): TerminalSize {
  const { stdout } = useStdout();
  const read = (): TerminalSize => ({
    columns: fixed?.columns ?? (stdout.columns || 80),
    rows: fixed?.rows ?? (stdout.rows || 24),
  });
  const [size, setSize] = useState<TerminalSize>(read);
  // biome-ignore lint/correctness/useExhaustiveDependencies: read closes over fixed and stdout only
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on("resize", onResize);
    return () => {
      stdout.off("resize", onResize);
    };
  }, [stdout, fixed?.columns, fixed?.rows]);
  return size;
}
