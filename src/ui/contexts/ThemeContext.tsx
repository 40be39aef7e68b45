import { createContext, useContext } from "react";
import { type Theme, themeFor } from "../theme.js";

export const ThemeContext = createContext<Theme>(themeFor());

/** The semantic colour tokens of the running app. */
export function useTheme(): Theme {
  return useContext(ThemeContext);
}
