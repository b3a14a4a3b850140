// The lab's search for the largest stable and accurate dt, off the page's own thread: the
// page's module again, in a worker of its own (src/sim_thread/search/in_page.rs posts the
// request and reads what this posts back, each as JSON).
import init, { search_in_worker } from "./flagsim-web.js";

const ready = init();

self.onmessage = async (message) => {
  try {
    await ready;
    search_in_worker(message.data);
  } catch (e) {
    self.postMessage(JSON.stringify({ Failure: "the search stopped: " + e }));
    self.postMessage(JSON.stringify("Finished"));
  }
};
