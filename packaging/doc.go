// Package packaging holds what runs echoctl outside a terminal: the release packages'
// nfpm.yaml, the container image (Containerfile) and the Kubernetes manifest
// (daemonset.yaml). It has no code; its tests lint the image definition and the manifest
// offline, against the real Dockerfile parser and the Kubernetes API's own types.
package packaging
