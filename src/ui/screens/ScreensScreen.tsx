import { Text } from "ink";
import type { ReactNode } from "react";
import type { ScreenProps } from "./types.js";

export function ScreensScreen(_props: ScreenProps): ReactNode {
  return <Text>Screens</Text>;
}
