/* Mutes howler.js for the whole page (the harness plays no sound): Howler.mute() in 1.x, mute(true) in 2.x. */
(() => { if (window.Howler && typeof window.Howler.mute === "function") window.Howler.mute(true); })();
