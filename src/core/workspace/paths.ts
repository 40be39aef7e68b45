import { join, resolve } from "node:path";

/** The config file name at the root of every workspace. */
export const CONFIG_FILE = "fire.config.json";

/** The folder of replay screens inside `screens/` (so no run screen may take this name). */
export const REPLAY_SCREENS_FOLDER = "replay";

/** Every folder and shared file of a workspace, as absolute paths: the one layout. */
export interface WorkspacePaths {
  root: string;
  config: string;
  traces: string;
  candidates: string;
  /** `candidates/drafts/`: what `fire draft` writes. */
  drafts: string;
  /** `screens/<name>/`: run screens (`fire screen plan`). */
  screens: string;
  /** `screens/replay/<id>-v<version>/`: replay screens, one per candidate identity. */
  replayScreens: string;
  portfolios: string;
  /** `exports/`: `fire export --portfolio` output by default. */
  exports: string;
  /** `mining/`: the user's mining input (decisions, hand outcomes), kept with the workspace. */
  mining: string;
  /** Cluster decisions (`fire cluster …`). */
  decisions: string;
  /** The attempt ids of long decisions' member lists, one file each, named by their digest. */
  memberSets: string;
  /** Outcomes and tags given by hand to attempts without a verifier. */
  handOutcomes: string;
  /** `.fire/` (git-ignored): caches and state, never user data. */
  fire: string;
  cache: string;
  /** Parse cache: one entry per source unit. */
  parseCache: string;
  /** The workspace index (the workbench's warm open). */
  index: string;
  /** What a lookup of one attempt reads of the index (ids, units), beside it. */
  indexLookup: string;
  /** A Bloom filter of the index's ids: "surely no attempt id" without reading them. */
  indexIdFilter: string;
  /** Label stores, one file per labeller. */
  labels: string;
  /** The clustering before decisions, beside the index. */
  miningCache: string;
  /** `fire triage`'s last answer, beside the index. */
  triageCache: string;
  /** What `fire clusters` shows of the current clusters (decisions applied), beside the index. */
  clustersSummary: string;
  /** Summaries of earlier decisions, by the decisions they applied (a decision's undo). */
  clustersSummaries: string;
  /** `fire route`'s last routing audit, beside the index. */
  routeCache: string;
  /** `fire triage`'s text, under the triage cache's key. */
  triageText: string;
  /** What the workbench's first frame shows of triage, under the triage cache's key. */
  triageGlance: string;
  /** What read commands of the attempts alone printed last (`fire attempts`), one file each. */
  texts: string;
  /** The config as last checked, keyed by the config file's bytes (read commands). */
  configCache: string;
  /** The LLM's response cache and batch state. */
  llmCache: string;
  /** The live hook's session state (`fire hook` without `--state-dir`). */
  state: string;
  /** The live hook's log (`fire hook` without `--log`; `fire hook report` reads it). */
  hookLog: string;
  /** `.fire/plugins/`: the plugin marketplaces `fire hook install --plugin` writes. */
  plugins: string;
}

let last: { root: string; paths: Readonly<WorkspacePaths> } | undefined;

/**
 * The workspace layout resolved from a workspace directory (nothing is created). The last
 * answer is kept: a hook call asks three times for one workspace, and ~30 joins each made
 * path's normalizer hot enough for V8 to optimize it.
 */
export function workspacePaths(dir: string): Readonly<WorkspacePaths> {
  const root = resolve(dir);
  if (last?.root !== root) last = { root, paths: Object.freeze(layout(root)) };
  return last.paths;
}

function layout(root: string): WorkspacePaths {
  const fire = join(root, ".fire");
  const cache = join(fire, "cache");
  const candidates = join(root, "candidates");
  const mining = join(root, "mining");
  const screens = join(root, "screens");
  return {
    root,
    config: join(root, CONFIG_FILE),
    traces: join(root, "traces"),
    candidates,
    drafts: join(candidates, "drafts"),
    screens,
    replayScreens: join(screens, REPLAY_SCREENS_FOLDER),
    portfolios: join(root, "portfolios"),
    exports: join(root, "exports"),
    mining,
    decisions: join(mining, "decisions.json"),
    memberSets: join(mining, "member-sets"),
    handOutcomes: join(mining, "outcomes.json"),
    fire,
    cache,
    parseCache: join(cache, "parse"),
    index: join(cache, "index.json"),
    indexLookup: join(cache, "index-lookup.json"),
    indexIdFilter: join(cache, "index-ids.json"),
    labels: join(cache, "labels"),
    miningCache: join(cache, "mining.json"),
    triageCache: join(cache, "triage.json"),
    triageText: join(cache, "triage-text.txt"),
    triageGlance: join(cache, "triage-glance.json"),
    texts: join(cache, "texts"),
    clustersSummary: join(cache, "clusters-summary.json"),
    clustersSummaries: join(cache, "clusters-summaries"),
    routeCache: join(cache, "route.json"),
    configCache: join(cache, "config.json"),
    llmCache: join(cache, "llm"),
    state: join(fire, "state"),
    hookLog: join(fire, "hook-log.jsonl"),
    plugins: join(fire, "plugins"),
  };
}
