import { type ComponentType, type ReactNode, useEffect, useState } from "react";
import { Text } from "../components/Text.js";
import { useAppState } from "../contexts/AppContext.js";
import { SCREENS, type ScreenId } from "../contexts/screens.js";
import { useHoldKeys } from "../hooks/useKeypress.js";
import { Status } from "../status.js";
import { TriageScreen } from "./TriageScreen.js";
import type { ScreenProps } from "./types.js";

export interface ScreenBodyProps extends ScreenProps {
  screen: ScreenId;
}

type Screen = ComponentType<ScreenProps>;

/**
 * The screens besides Triage (the first one) load their code when first needed: it is
 * most of the workbench's, and the first usable frame does not wait for it.
 */
const LOADERS: Record<Exclude<ScreenId, "triage">, () => Promise<Screen>> = {
  attempt: async () => (await import("./AttemptScreen.js")).AttemptScreen,
  mechanisms: async () => (await import("./MechanismsScreen.js")).MechanismsScreen,
  candidates: async () => (await import("./CandidatesScreen.js")).CandidatesScreen,
  screening: async () => (await import("./ScreeningScreen.js")).ScreeningScreen,
  portfolio: async () => (await import("./PortfolioScreen.js")).PortfolioScreen,
  runs: async () => (await import("./RunsScreen.js")).RunsScreen,
};

/** Screens that show the candidate files (they read nothing else while those are pending). */
const OF_CANDIDATES: readonly ScreenId[] = ["candidates", "screening"];

const loaded = new Map<ScreenId, Screen>([["triage", TriageScreen]]);
const loading = new Map<ScreenId, Promise<Screen>>();

function loadScreen(id: Exclude<ScreenId, "triage">): Promise<Screen> {
  let p = loading.get(id);
  if (!p) {
    p = LOADERS[id]().then((s) => {
      loaded.set(id, s);
      return s;
    });
    loading.set(id, p);
  }
  return p;
}

/** Loads the other screens' code in the background, one after another. */
export async function preloadScreens(): Promise<void> {
  for (const id of Object.keys(LOADERS) as Exclude<ScreenId, "triage">[]) await loadScreen(id);
}

/** The screen's component, once its code is loaded (it starts loading now if it is not). */
function useScreen(id: ScreenId): { screen?: Screen; error?: string } {
  const [error, setError] = useState<string>();
  const [, setLoaded] = useState(0);
  const screen = loaded.get(id);
  useEffect(() => {
    if (screen || id === "triage") return;
    let live = true;
    loadScreen(id).then(
      () => live && setLoaded((n) => n + 1),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [id, screen]);
  return { ...(screen ? { screen } : {}), ...(error ? { error } : {}) };
}

/** The active screen (only it is mounted, so only its keys are live). */
export function ScreenBody({ screen, width, height }: ScreenBodyProps): ReactNode {
  const { data, status } = useAppState();
  const { screen: Body, error } = useScreen(screen);
  // keys typed while the screen's code loads are for it: they wait until it is mounted; on a
  // screen of candidates, until the candidate files are read (right after the first frame)
  useHoldKeys((!Body && !error) || (!!data?.candidatesPending && OF_CANDIDATES.includes(screen)));
  // once the workspace is shown, the other screens' code loads in the background
  useEffect(() => {
    if (data) void preloadScreens().catch(() => undefined);
  }, [data]);
  if (!data && status === Status.Error)
    return (
      <Text>
        The workspace could not be read (the message line says why). Fix it, then restart fire.
      </Text>
    );
  const title = SCREENS.find((s) => s.id === screen)?.title ?? screen;
  if (error) return <Text>{`The ${title} screen could not be loaded: ${error}`}</Text>;
  if (!Body) return <Text>{`loading ${title} …`}</Text>;
  return <Body width={width} height={height} />;
}
