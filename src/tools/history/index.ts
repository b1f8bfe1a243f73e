export const HISTORY_TOOLS = [] as const;
