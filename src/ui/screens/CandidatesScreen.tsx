import { Text } from "ink";
import type { ReactNode } from "react";
import type { ScreenProps } from "./types.js";

export function CandidatesScreen(_props: ScreenProps): ReactNode {
  return <Text>Candidates</Text>;
}
