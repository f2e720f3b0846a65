package toolchain

import "io/fs"

// javaRule prefers the repository's wrapper, which pins the build tool's
// version; setup downloads it and the dependencies, the tests run offline.
func javaRule(fsys fs.FS) (Inference, bool) {
	switch {
	case exists(fsys, "mvnw") && exists(fsys, "pom.xml"):
		return Inference{Ecosystem: "java", From: "mvnw", Setup: "sh ./mvnw -B -q dependency:go-offline", Test: "sh ./mvnw -B -o test", Tools: []string{"java"}}, true
	case exists(fsys, "gradlew"):
		return Inference{Ecosystem: "java", From: "gradlew", Setup: "sh ./gradlew --no-daemon -q testClasses", Test: "sh ./gradlew --no-daemon --offline test", Tools: []string{"java"}}, true
	case exists(fsys, "pom.xml"):
		return Inference{Ecosystem: "java", From: "pom.xml", Setup: "mvn -B -q dependency:go-offline", Test: "mvn -B -o test", Tools: []string{"java", "mvn"}}, true
	case exists(fsys, "build.gradle") || exists(fsys, "build.gradle.kts"):
		return Inference{Ecosystem: "java", From: "build.gradle", Setup: "gradle --no-daemon -q testClasses", Test: "gradle --no-daemon --offline test", Tools: []string{"java", "gradle"}}, true
	}
	return Inference{}, false
}
