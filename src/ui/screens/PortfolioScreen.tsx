import { Text } from "ink";
import type { ReactNode } from "react";
import type { ScreenProps } from "./types.js";

export function PortfolioScreen(_props: ScreenProps): ReactNode {
  return <Text>Portfolio</Text>;
}
