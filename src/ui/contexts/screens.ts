/** The screens, in keymap order (number keys 1–7, Tab cycles). */
export const SCREENS = [
  { id: "triage", key: "1", title: "Triage" },
  { id: "attempt", key: "2", title: "Attempt" },
  { id: "mechanisms", key: "3", title: "Mechanisms" },
  { id: "candidates", key: "4", title: "Candidates" },
  { id: "screening", key: "5", title: "Screens" }, // a candidate's replay and run screens
  { id: "portfolio", key: "6", title: "Portfolio" },
  { id: "runs", key: "7", title: "Runs" },
] as const;

export type ScreenId = (typeof SCREENS)[number]["id"];

/** The screen `by` places on from `screen` (Tab, Shift-Tab), wrapping around. */
export function cycleScreen(screen: ScreenId, by: 1 | -1): ScreenId {
  const i = SCREENS.findIndex((s) => s.id === screen);
  return SCREENS[(i + by + SCREENS.length) % SCREENS.length]!.id;
}
