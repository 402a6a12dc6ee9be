/** What the note reads of a session's runs. */
type RunModels = readonly { readonly model?: { readonly provider: string; readonly modelId: string } | undefined }[];

/**
 * The one line that says a resumed session goes on with another model than its last run used
 * (`forge --last` on a session of `openai:gpt-5.1` with the default `scripted:demo`), and how to
 * stay on it; undefined when the models agree or the session has no run with a model yet.
 */
export function modelSwitchNote(runs: RunModels, current: string, chooseWith: string): string | undefined {
  const model = runs.findLast((run) => run.model !== undefined)?.model;
  if (model === undefined) return undefined;
  const previous = `${model.provider}:${model.modelId}`;
  if (previous === current) return undefined;
  return `this session last ran on ${previous}; it continues on ${current} (${chooseWith} ${previous} to stay on it)`;
}
