import { Text } from "ink";
import type { ReactNode } from "react";
import type { ScreenProps } from "./types.js";

export function MechanismsScreen(_props: ScreenProps): ReactNode {
  return <Text>Mechanisms</Text>;
}
