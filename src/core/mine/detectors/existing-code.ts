/** The task role a hit states when the task is about code already present. */
export const EXISTING_CODE_ROLE = "the task is about code already present";

/**
 * A task about code that is already there: it names "this repository", "the codebase", "the
 * existing implementation", or says what the code "already" does or has ("the project" or
 * "the implementation" alone may be what the agent is to write).
 */
export const EXISTING_CODE =
  /\b(?:this|our|current|existing)\s+(?:repo|repository|codebase|code\s?base|source tree|source code|implementation|project)\b|\bthe\s+(?:repo|repository|codebase|code\s?base|source tree|source code)\b|\bexisting\s+(?:\w+[-\s]){0,2}(?:code|functionality|behaviou?r|implementation|logic|flow|api|tests?|module|package|paths?)\b|\balready\s+(?:exists?|exposes|supports|has|contains|provides|implements)\b/i;
