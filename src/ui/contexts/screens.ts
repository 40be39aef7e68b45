/** The six screens, in keymap order (number keys 1–6, Tab cycles). */
export const SCREENS = [
  { id: "triage", key: "1", title: "Triage" },
  { id: "attempt", key: "2", title: "Attempt" },
  { id: "mechanisms", key: "3", title: "Mechanisms" },
  { id: "candidates", key: "4", title: "Candidates" },
  { id: "screens", key: "5", title: "Screens" },
  { id: "portfolio", key: "6", title: "Portfolio" },
] as const;

export type ScreenId = (typeof SCREENS)[number]["id"];
