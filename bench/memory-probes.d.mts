export function answerMemoryProbes(): void;
