/** What the app is doing; drives the spinner and the message line. */
export enum Status {
  Idle = "idle",
  Loading = "loading",
  Running = "running",
  Done = "done",
  Cancelled = "cancelled",
  Error = "error",
}

/** Statuses during which a spinner turns and Ctrl-X / Esc cancels. */
export function isBusy(s: Status): boolean {
  return s === Status.Loading || s === Status.Running;
}
