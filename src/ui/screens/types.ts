/** What every screen gets from the shell: the room it may use. */
export interface ScreenProps {
  width: number;
  /** Rows for the screen body (header and status lines excluded). */
  height: number;
}
