// The worker thread of the events' preparation (`EventPreparer`): an apply's (`prepareEvents`, its
// default task) and a load's from the store (`prepareStoredEvents`, by name).
import { prepareEvents, prepareStoredEvents } from "./event-preparation";

export default prepareEvents;
export { prepareStoredEvents };
