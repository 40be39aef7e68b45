import { basename } from "node:path";
import { useState } from "react";
import { checkCandidateText } from "../../core/app/editor.js";
import { useAppActions } from "../contexts/AppContext.js";
import { errorLine, reasonText } from "../contexts/errors.js";
import { type CandidateEntry, saveCandidate, statusOf } from "../data/candidates.js";
import { useExternalEditor } from "./useExternalEditor.js";
import { useWorkbench } from "./useWorkbench.js";

/**
 * A candidate file's text outside the field editor: read in the pager (`y`), edited in
 * $EDITOR (`e`), saved through the validated core path (checkCandidateText, then
 * saveCandidateText: compiled, never a frozen file, atomic). A text that does not check out
 * is handed to the editor unsaved (`handoff`), so nothing is lost.
 */
export function useCandidateText(openEditor: (file: string) => void) {
  const actions = useAppActions();
  const wb = useWorkbench();
  const external = useExternalEditor();
  const [reading, setReading] = useState<CandidateEntry | undefined>();
  const [handoff, setHandoff] = useState<{ file: string; text: string } | undefined>();

  /** Saves; resolves to the errors, one string each (none when saved). */
  const save = async (e: CandidateEntry, text: string): Promise<string[]> => {
    let errors: string[] = [];
    await actions.run(
      `saving ${e.rel}`,
      async () => {
        const errs = await saveCandidate(e.file, text).catch((err: unknown) => {
          errors = [errorLine(err)];
          throw err;
        });
        errors = errs.map(reasonText);
        if (errs[0]) throw errs[0];
      },
      () => `saved ${e.rel}`,
    );
    wb.reloadCandidates();
    return errors;
  };
  // Saved when it checks out, else kept unsaved in the editor with its errors.
  const fromEditor = (e: CandidateEntry, text: string) => {
    if (checkCandidateText(e.file, text).length === 0) {
      void save(e, text).then(() => setReading(undefined));
      return;
    }
    setReading(undefined);
    setHandoff({ file: e.file, text });
    openEditor(e.file);
    actions.notify("warn", `${e.rel}: the edit does not check out; kept unsaved in the editor`);
  };
  return {
    reading,
    handoff,
    save,
    read: (e: CandidateEntry) => setReading(e),
    closeReading: () => setReading(undefined),
    clearHandoff: () => setHandoff(undefined),
    /** `e` on the list: the file in $EDITOR. */
    edit(e: CandidateEntry) {
      if (statusOf(e) === "frozen") {
        actions.notify("warn", `${e.rel} is frozen: revise it (V), then edit the new version`);
        return;
      }
      const r = external(e.text, basename(e.file));
      if (r.text === undefined) actions.notify("error", r.error ?? "the editor failed");
      else if (r.text !== e.text) fromEditor(e, r.text);
    },
    /** The pager's `e` on a read candidate: the problem text, or undefined once saving. */
    edited(e: CandidateEntry, text: string): string | undefined {
      const errs = checkCandidateText(e.file, text);
      if (errs.length) return `not saved:\n${errs.map(reasonText).join("\n")}`;
      void save(e, text);
      return undefined;
    },
  };
}
