// Imported for its effect: zod's functional build (zod/mini), which the agent uses so that a
// bundle keeps only what it calls, sets no locale of its own; the messages are English, as
// classic zod's are.
import { config, locales } from 'zod/mini';

config(locales.en());
