import { Text } from "ink";
import type { ReactNode } from "react";
import { useAppState } from "../contexts/AppContext.js";
import type { ScreenId } from "../contexts/screens.js";
import { Status } from "../status.js";
import { AttemptScreen } from "./AttemptScreen.js";
import { CandidatesScreen } from "./CandidatesScreen.js";
import { MechanismsScreen } from "./MechanismsScreen.js";
import { PortfolioScreen } from "./PortfolioScreen.js";
import { RunsScreen } from "./RunsScreen.js";
import { ScreensScreen } from "./ScreensScreen.js";
import { TriageScreen } from "./TriageScreen.js";
import type { ScreenProps } from "./types.js";

export interface ScreenBodyProps extends ScreenProps {
  screen: ScreenId;
}

/** The active screen (only it is mounted, so only its keys are live). */
export function ScreenBody({ screen, width, height }: ScreenBodyProps): ReactNode {
  const { data, status } = useAppState();
  if (!data && status === Status.Error)
    return (
      <Text>
        The workspace could not be read (the message line says why). Fix it, then restart fire.
      </Text>
    );
  const props = { width, height };
  switch (screen) {
    case "triage":
      return <TriageScreen {...props} />;
    case "attempt":
      return <AttemptScreen {...props} />;
    case "mechanisms":
      return <MechanismsScreen {...props} />;
    case "candidates":
      return <CandidatesScreen {...props} />;
    case "screens":
      return <ScreensScreen {...props} />;
    case "portfolio":
      return <PortfolioScreen {...props} />;
    case "runs":
      return <RunsScreen {...props} />;
  }
}
