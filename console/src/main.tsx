import { render } from "preact";
import { App } from "./components/app.tsx";
import "./style.css";

render(<App />, document.getElementById("app") as HTMLElement);
